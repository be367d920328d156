import type { PrismaClient } from "@tranche/db";
import { createApiToken, revokeApiToken, type Actor } from "@tranche/domain";

/** The name of the token the demo workload generator (demo-workload.ts) mints per generated researcher. */
export const GENERATOR_TOKEN = "demo workload generator";

/**
 * A new generator token for `actor`. One live token per researcher: the ones an earlier start made are
 * revoked, not left live (15 more live tokens on every `npm start`). Only the generator's own, by their
 * name, and through revokeApiToken, the users' own revoke, so the audit log records each (token.revoke)
 * as it records the create: deleting the rows, as this once did, left no trace.
 */
export async function freshGeneratorToken(prisma: PrismaClient, actor: Actor): Promise<string> {
  const live = await prisma.apiToken.findMany({
    where: { userId: actor.id, name: GENERATOR_TOKEN, revokedAt: null },
    select: { id: true },
  });
  for (const t of live) await revokeApiToken(prisma, actor, t.id);
  // Made by the platform, not the person: the audit log credits the system, and the hourly limit on the
  // tokens a person makes does not count it (a demo restarted often would otherwise stop generating work).
  const { token } = await createApiToken(
    prisma,
    actor,
    { name: GENERATOR_TOKEN, expiresInDays: 1 },
    "the demo workload generator",
  );
  return token;
}
