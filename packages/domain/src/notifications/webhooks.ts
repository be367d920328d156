import type { PrismaClient } from "@tranche/db";
import { postWebhook } from "./webhook-post";
import { checkWebhookTarget, type HostAddresses, type ResolveHost, type ResolvedAddress } from "./webhook-target";

/** How long one POST may take before it counts as failed. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Tries per notification before it is marked FAILED. */
export const WEBHOOK_ATTEMPTS = 3;
/** Notifications sent per round. */
const BATCH = 50;

export interface WebhookLog {
  warn(message: string): void;
}

/**
 * One delivery round: POST each notification waiting for its user's webhook (webhookState PENDING) as
 * JSON, with a bounded timeout; a 2xx marks it SENT, anything else counts a try, and after
 * WEBHOOK_ATTEMPTS tries it is FAILED and logged. The worker runs this on its own timer, apart from the
 * scheduling cycle, so a slow or broken endpoint never delays scheduling. Rows are claimed with
 * SKIP LOCKED, so two workers never send the same notification twice at once.
 */
export async function deliverWebhooks(
  prisma: PrismaClient,
  log: WebhookLog,
  opts: { timeoutMs?: number } = {},
): Promise<{ sent: number; failed: number }> {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  let sent = 0;
  let failed = 0;
  await prisma.$transaction(
    async (tx) => {
      const rows = await tx.$queryRaw<
        {
          id: bigint;
          kind: string;
          jobId: number | null;
          title: string;
          sentence: string;
          details: unknown;
          createdAt: Date;
          attempts: number;
          url: string | null;
          email: string;
        }[]
      >`
        SELECT n.id, n.kind, n."jobId", n.title, n.sentence, n.details, n."createdAt", n."webhookAttempts" AS attempts,
               u."webhookUrl" AS url, u.email
        FROM notification n JOIN "user" u ON u.id = n."userId"
        WHERE n."webhookState" = 'PENDING'
        ORDER BY n.id LIMIT ${BATCH} FOR UPDATE OF n SKIP LOCKED`;
      const results = await Promise.all(
        rows.map(async (r) => {
          if (!r.url) return { id: r.id, ok: false, final: true, why: "the user removed their webhook" };
          const body = JSON.stringify({
            id: String(r.id),
            kind: r.kind,
            jobId: r.jobId,
            title: r.title,
            sentence: r.sentence,
            createdAt: r.createdAt.toISOString(),
            user: r.email,
            details: r.details,
          });
          return { id: r.id, ...(await sendWebhook(r.url, body, r.attempts, { timeoutMs })) };
        }),
      );
      for (const r of results) {
        if (r.ok) sent++;
        else {
          failed++;
          log.warn(`webhook for notification ${r.id} failed: ${r.why}${r.final ? " (giving up)" : " (will retry)"}`);
        }
        await tx.notification.update({
          where: { id: r.id },
          data: {
            webhookAttempts: { increment: 1 },
            ...(r.ok ? { webhookState: "SENT" } : r.final ? { webhookState: "FAILED" } : {}),
          },
        });
      }
    },
    { timeout: timeoutMs * 2 + 10_000 },
  );
  return { sent, failed };
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
    post?: (url: string, body: string, o: { timeoutMs: number; pinned: ResolvedAddress[] | null }) => Promise<number>;
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
  try {
    const status = await (opts.post ?? postWebhook)(url, body, { timeoutMs: left, pinned: target.pinned });
    if (status >= 200 && status < 300) return { ok: true, final: true, why: "" };
    return { ok: false, final: last, why: `HTTP ${status}` };
  } catch (e) {
    // A timeout names the try's whole timeout, not the part of it the lookup left to the POST.
    const why =
      e instanceof Error ? (e.name === "TimeoutError" ? `no answer within ${opts.timeoutMs} ms` : e.message) : String(e);
    return { ok: false, final: last, why };
  }
}
