import { LIMITS } from "@tranche/contracts";
import type { Tx } from "@tranche/db";
import { TooManyRequests } from "../too-many-requests";

export const API_TOKENS_PER_HOUR = LIMITS.apiTokensMadePerUserPerHour;
const HOUR_MS = 3_600_000;

/**
 * Refuses (429, with when to try again) a person's token past API_TOKENS_PER_HOUR made in the last hour.
 * Each token made and revoked writes two audit rows, and the audit log is kept whole: a loop that makes
 * and revokes tokens would grow it at its request rate. The ended tokens kept (LIMITS) hold the last
 * hour's, so counting the person's token rows is enough: nothing else is stored.
 */
export async function checkTokenPace(tx: Tx, userId: string, now = new Date()): Promise<void> {
  const recent = await tx.apiToken.findMany({
    where: { userId, createdAt: { gt: new Date(now.getTime() - HOUR_MS) } },
    orderBy: { createdAt: "desc" },
    select: { createdAt: true },
    take: API_TOKENS_PER_HOUR,
  });
  if (recent.length < API_TOKENS_PER_HOUR) return;
  // The oldest of the last hour's newest few leaves the hour first: then one more may be made.
  const waitSec = Math.max(1, Math.ceil((recent.at(-1)!.createdAt.getTime() + HOUR_MS - now.getTime()) / 1000));
  const minutes = Math.ceil(waitSec / 60);
  throw new TooManyRequests(
    `You have made ${API_TOKENS_PER_HOUR} API tokens in the last hour, the most one person may; ` +
      `you may make another in ${minutes === 1 ? "a minute" : `${minutes} minutes`}`,
    waitSec,
  );
}
