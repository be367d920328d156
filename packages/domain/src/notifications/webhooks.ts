import type { PrismaClient } from "@tranche/db";
import { dropDisabledAccountsWebhooks, WEBHOOK_ACCOUNT_DISABLED } from "./webhook-disabled";
import { postWebhook } from "./webhook-post";
import { webhookSignatureHeaders, webhookSigningSecrets } from "./webhook-signature";
import { checkWebhookTarget, type HostAddresses, type ResolveHost, type ResolvedAddress } from "./webhook-target";

/** How long one POST may take before it counts as failed. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Tries per notification before it is marked FAILED. */
export const WEBHOOK_ATTEMPTS = 3;
/** Notifications sent per round, all users together. */
const BATCH = 50;
/**
 * Notifications sent per round for one user: the oldest few of each, so one user's backlog (a webhook
 * that never answers, hundreds of jobs failing fast) cannot fill a round and hold everyone else's.
 */
export const WEBHOOK_PER_USER = 5;

/**
 * How long a round's claim on a notification holds: past it, the round is taken to have died (a worker
 * that crashed mid-round) and another takes the notification again. A round's POSTs run together, each
 * within `timeoutMs` (its lookup included), and each result is recorded as soon as its POST ends, so a
 * live round is done with its claims well before this.
 */
export function webhookClaimMs(timeoutMs: number): number {
  return timeoutMs * 2 + 60_000;
}

export interface WebhookLog {
  warn(message: string): void;
}

/**
 * A notification a round claimed. Not where to send it: the user's webhook is read again when each
 * try is sent (webhookNow), as a changed or removed address must not get a POST claimed before it.
 */
export interface ClaimedNotification {
  id: bigint;
  userId: string;
  kind: string;
  jobId: number | null;
  title: string;
  sentence: string;
  details: unknown;
  createdAt: Date;
  attempts: number;
  claimedAt: Date;
  email: string;
}

/**
 * One delivery round: POST each notification waiting for its user's webhook (webhookState PENDING) as
 * JSON, with a bounded timeout; a 2xx marks it SENT, anything else counts a try, and after
 * WEBHOOK_ATTEMPTS tries it is FAILED and logged. The worker runs this on its own timer, apart from the
 * scheduling cycle, so a slow or broken endpoint never delays scheduling.
 *
 * A round takes at most WEBHOOK_PER_USER notifications per user (each user's oldest, users' first ones
 * before anyone's second), so everyone's notifications go out in the next round whatever one user's
 * backlog. It claims them in one statement (webhookClaimedAt, the rows locked with SKIP LOCKED while it
 * runs, so two workers never claim the same one) and commits: no transaction, row lock or connection is
 * held while receivers answer. Each result is written as soon as its POST ends, only while the claim is
 * still this round's. A claim older than webhookClaimMs (a worker that died mid-round) is taken again,
 * so such a notification may be POSTed twice; its body's id (and its webhook-id header) tells the receiver.
 * Each try goes to the user's webhook as it is when it is sent, not as it was at the claim (a changed
 * address gets it, a removed one or a disabled account nothing), and is signed with the user's secrets
 * of that moment too (webhook-signature.ts), so a receiver can tell it is ours. A disabled account's
 * notifications are not POSTed (webhook-disabled.ts).
 */
export async function deliverWebhooks(
  prisma: PrismaClient,
  log: WebhookLog,
  opts: { timeoutMs?: number } = {},
): Promise<{ sent: number; failed: number }> {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  await dropDisabledAccountsWebhooks(prisma, webhookClaimMs(timeoutMs));
  return sendClaimed(prisma, log, await claimWebhooks(prisma, timeoutMs), timeoutMs);
}

/** Claims a round's notifications (deliverWebhooks says which and how) and commits the claim. */
export async function claimWebhooks(prisma: PrismaClient, timeoutMs: number): Promise<ClaimedNotification[]> {
  const claimMs = webhookClaimMs(timeoutMs);
  // The window function numbers each user's waiting notifications; Postgres takes no FOR UPDATE beside
  // a window function, so it runs in its own CTE and the locking SELECT joins it. That SELECT repeats
  // the conditions on the row itself: a row another round claimed and committed after this statement
  // began is re-read when locked, and those conditions (not the CTE's old numbering) then leave it out.
  return prisma.$queryRaw<ClaimedNotification[]>`
    WITH waiting AS (
      SELECT n.id, row_number() OVER (PARTITION BY n."userId" ORDER BY n.id) AS place
      FROM notification n
      WHERE n."webhookState" = 'PENDING'
        AND (n."webhookClaimedAt" IS NULL OR n."webhookClaimedAt" < now() - ${claimMs}::int * interval '1 millisecond')
    ), picked AS (
      SELECT n.id
      FROM notification n JOIN waiting w ON w.id = n.id
      WHERE w.place <= ${WEBHOOK_PER_USER}::int
        AND n."webhookState" = 'PENDING'
        AND (n."webhookClaimedAt" IS NULL OR n."webhookClaimedAt" < now() - ${claimMs}::int * interval '1 millisecond')
      ORDER BY w.place, n.id
      LIMIT ${BATCH}::int
      FOR UPDATE OF n SKIP LOCKED
    )
    UPDATE notification n SET "webhookClaimedAt" = now()
    FROM picked p, "user" u
    WHERE n.id = p.id AND u.id = n."userId" AND u."disabledAt" IS NULL
    RETURNING n.id, n."userId", n.kind, n."jobId", n.title, n.sentence, n.details, n."createdAt",
              n."webhookAttempts" AS attempts, n."webhookClaimedAt" AS "claimedAt", u.email`;
}

/** POSTs notifications a round claimed, together, and records each one's result. */
export async function sendClaimed(
  prisma: PrismaClient,
  log: WebhookLog,
  rows: ClaimedNotification[],
  timeoutMs: number,
): Promise<{ sent: number; failed: number }> {
  let sent = 0;
  let failed = 0;
  await Promise.all(
    rows.map(async (r) => {
      const body = bodyOf(r);
      // Signed on each try with that try's time and the secrets of that moment, not the claim's: a secret
      // made after the claim signs it. A webhook set before secrets existed has none yet.
      const sign = async () => {
        const secrets = await webhookSigningSecrets(prisma, r.userId);
        return secrets.length > 0 ? webhookSignatureHeaders(secrets, String(r.id), Math.floor(Date.now() / 1000), body) : {};
      };
      const now = await webhookNow(prisma, r.userId);
      const result: WebhookTry =
        now.disabled || now.url === null
          ? { ok: false, final: true, why: now.disabled ? "the user's account was disabled" : "the user removed their webhook" }
          : await sendWebhook(now.url, body, r.attempts, { timeoutMs, sign });
      const endState = result.ok ? "SENT" : now.disabled ? WEBHOOK_ACCOUNT_DISABLED : result.final ? "FAILED" : null;
      // Only while the claim is still this round's: one taken again by another round is that round's.
      const recorded = await prisma.notification.updateMany({
        where: { id: r.id, webhookState: "PENDING", webhookClaimedAt: r.claimedAt },
        data: {
          webhookAttempts: { increment: 1 },
          webhookClaimedAt: null,
          ...(endState ? { webhookState: endState } : {}),
        },
      });
      if (result.ok) sent++;
      else {
        failed++;
        log.warn(`webhook for notification ${r.id} failed: ${result.why}${result.final ? " (giving up)" : " (will retry)"}`);
      }
      if (recorded.count === 0)
        log.warn(`webhook for notification ${r.id}: its claim ran out before its result; another round has it`);
    }),
  );
  return { sent, failed };
}

/** The user's webhook as it is now, and whether their account is disabled (then nothing is POSTed). */
async function webhookNow(prisma: PrismaClient, userId: string): Promise<{ url: string | null; disabled: boolean }> {
  const u = await prisma.user.findUnique({ where: { id: userId }, select: { webhookUrl: true, disabledAt: true } });
  return { url: u?.webhookUrl ?? null, disabled: u === null || u.disabledAt !== null };
}

/** The JSON a webhook receives for one notification. */
function bodyOf(r: ClaimedNotification): string {
  return JSON.stringify({
    id: String(r.id),
    kind: r.kind,
    jobId: r.jobId,
    title: r.title,
    sentence: r.sentence,
    createdAt: r.createdAt.toISOString(),
    user: r.email,
    details: r.details,
  });
}

/** What one try at one notification came to: sent, or why not and whether that was the last try. */
export interface WebhookTry {
  ok: boolean;
  final: boolean;
  why: string;
}

/**
 * One try at POSTing `body` to `url`, within `timeoutMs` in all (the name's lookup included): the
 * target is checked now (it must resolve, and not to a private address or one of this host's unless
 * those are allowed), and the POST connects to the addresses just checked, never to a second
 * resolution of the name. A refused target is final; a failed POST, or a lookup that took too
 * long, is retried until WEBHOOK_ATTEMPTS tries.
 */
export async function sendWebhook(
  url: string,
  body: string,
  attempts: number,
  opts: {
    timeoutMs: number;
    allowPrivate?: boolean;
    resolve?: ResolveHost;
    hostAddresses?: HostAddresses;
    /** The headers that sign this try, made once its target is checked, just before the POST. */
    sign?: () => Promise<Record<string, string>>;
    post?: (
      url: string,
      body: string,
      o: { timeoutMs: number; pinned: ResolvedAddress[] | null; headers?: Record<string, string> },
    ) => Promise<number>;
  },
): Promise<WebhookTry> {
  const started = Date.now();
  const last = attempts + 1 >= WEBHOOK_ATTEMPTS;
  const target = await checkWebhookTarget(url, {
    allowPrivate: opts.allowPrivate,
    resolve: opts.resolve,
    hostAddresses: opts.hostAddresses,
    lookupTimeoutMs: opts.timeoutMs,
  });
  if (target.problem !== null) return { ok: false, final: target.retry === true ? last : true, why: target.problem };
  // The lookup counts within the try's timeout: one try never takes much longer than timeoutMs.
  const left = Math.max(1, opts.timeoutMs - (Date.now() - started));
  // Outside the try: a database that cannot say the secrets fails the round, not this notification's try.
  const headers = opts.sign ? await opts.sign() : undefined;
  try {
    const status = await (opts.post ?? postWebhook)(url, body, { timeoutMs: left, pinned: target.pinned, headers });
    if (status >= 200 && status < 300) return { ok: true, final: true, why: "" };
    return { ok: false, final: last, why: `HTTP ${status}` };
  } catch (e) {
    // A timeout names the try's whole timeout, not the part of it the lookup left to the POST.
    const why =
      e instanceof Error ? (e.name === "TimeoutError" ? `no answer within ${opts.timeoutMs} ms` : e.message) : String(e);
    return { ok: false, final: last, why };
  }
}
