import type { Tx } from "@tranche/db";
import { formatBytes, type LogChunk } from "@tranche/contracts";

const MiB = 1024 * 1024;
/** Default log retention per job: the newest 64 MiB. */
export const DEFAULT_LOG_RETENTION_BYTES = 64 * MiB;
const MIN_RETENTION = MiB;
const MAX_RETENTION = 1024 * MiB;
/** Once over the retention, the oldest chunks go until this share of it is left (one trim per ~10% of output). */
const TRIM_TO = 0.9;

/** A size from the environment: bytes, or e.g. `64MiB`; a bad value is an error naming it, never replaced. */
function sizeFromEnv(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number, example: string): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  const m = /^(\d+)\s*(B|KiB|MiB|GiB|TiB)?$/i.exec(raw);
  const unit = { b: 1, kib: 1024, mib: MiB, gib: 1024 * MiB, tib: 1024 * 1024 * MiB }[(m?.[2] ?? "b").toLowerCase()] ?? 1;
  const bytes = m ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < min || bytes > max)
    throw new Error(
      `${name} must be a size from ${formatBytes(min)} to ${formatBytes(max)} (bytes, or e.g. ${example}), not '${raw}'`,
    );
  return bytes;
}

/** The log bytes the control plane keeps per job: TRANCHE_LOG_RETENTION_BYTES, 1 MiB to 1 GiB, default 64 MiB. */
export function logRetentionBytes(env: NodeJS.ProcessEnv = process.env): number {
  return sizeFromEnv(env, "TRANCHE_LOG_RETENTION_BYTES", DEFAULT_LOG_RETENTION_BYTES, MIN_RETENTION, MAX_RETENTION, "64MiB");
}

/** Default log bytes kept for all of one user's jobs: 4 GiB. */
export const DEFAULT_LOG_USER_BYTES = 4 * 1024 * MiB;
const MAX_USER_BYTES = 1024 * 1024 * MiB;

/**
 * The log bytes the control plane keeps for all of one user's jobs: TRANCHE_LOG_USER_BYTES (1 MiB to
 * 1 TiB), default 4 GiB. Each job's own retention bounds a job, not a person: one user's short jobs
 * (each costing nothing, at a zero minimum runtime) could otherwise fill the database everyone shares.
 */
export function logUserBytes(env: NodeJS.ProcessEnv = process.env): number {
  return sizeFromEnv(env, "TRANCHE_LOG_USER_BYTES", DEFAULT_LOG_USER_BYTES, MIN_RETENTION, MAX_USER_BYTES, "4GiB");
}

/**
 * Stores a heartbeat's log chunks and keeps each job's log within its retention: every chunk is kept
 * (a job's newest output is what people follow), and once a job holds more than the retention its
 * oldest chunks are dropped, counted in job.logDroppedBytes so the job page and the API can say so.
 * The full output stays in the job's log files on its nodes. Gang members report the same job: the
 * job row's lock (taken by the byte count's UPDATE) serializes their trims.
 */
export async function storeJobLogs(tx: Tx, logs: LogChunk[], nodeName: string, now: Date): Promise<void> {
  if (logs.length === 0) return;
  await tx.jobLogChunk.createMany({
    data: logs.map((l) => ({
      jobId: l.jobId,
      segmentId: BigInt(l.segmentId),
      node: nodeName,
      stream: l.stream,
      text: l.text,
      at: now,
    })),
  });
  const retention = logRetentionBytes();
  const add = new Map<number, number>();
  for (const l of logs) add.set(l.jobId, (add.get(l.jobId) ?? 0) + Buffer.byteLength(l.text, "utf8"));
  const ids = [...add.keys()].sort((a, b) => a - b);
  const rows = await tx.$queryRaw<{ id: number; userId: string; over: boolean }[]>`
    UPDATE job j SET "logBytes" = j."logBytes" + x.add
    FROM unnest(${ids}::int[], ${ids.map((i) => add.get(i)!)}::int[]) AS x(id, add)
    WHERE j.id = x.id
    RETURNING j.id, j."userId", j."logBytes" > ${retention} AS over`;
  // Each user's total moves by what their jobs gained, less what the trims below drop.
  const userDelta = new Map<string, number>();
  for (const r of rows) userDelta.set(r.userId, (userDelta.get(r.userId) ?? 0) + add.get(r.id)!);
  for (const { id, userId } of rows.filter((r) => r.over)) {
    const keep = Math.floor(retention * TRIM_TO);
    // The newest chunk always stays, even alone over the target.
    const [dropped] = await tx.$queryRaw<{ bytes: bigint | null }[]>`
      WITH c AS (
        SELECT id, octet_length(text) AS b, SUM(octet_length(text)) OVER (ORDER BY id DESC) AS newer
        FROM job_log_chunk WHERE "jobId" = ${id}
      ), d AS (
        DELETE FROM job_log_chunk WHERE id IN (SELECT id FROM c WHERE newer > ${keep} AND newer > b) RETURNING octet_length(text) AS b
      )
      SELECT SUM(b)::bigint AS bytes FROM d`;
    const bytes = Number(dropped?.bytes ?? 0);
    if (bytes > 0) {
      await tx.$executeRaw`
        UPDATE job SET "logBytes" = GREATEST(0, "logBytes" - ${bytes}), "logDroppedBytes" = "logDroppedBytes" + ${bytes}
        WHERE id = ${id}`;
      userDelta.set(userId, userDelta.get(userId)! - bytes);
    }
  }
  await keepUsersWithinQuota(tx, userDelta);
}

/**
 * Adds each user's change to their total; a user past TRANCHE_LOG_USER_BYTES loses the stored logs of
 * their jobs that have ended, oldest first, until 90% of it is left (counted in each job's
 * logDroppedBytes, as a job's own trims are). Running jobs keep theirs, each within its retention.
 * Users in id order: two heartbeats of one user's jobs on two nodes wait for each other here, never
 * lock each other's rows the other way round.
 */
async function keepUsersWithinQuota(tx: Tx, delta: Map<string, number>): Promise<void> {
  const users = [...delta.keys()].sort();
  if (users.length === 0) return;
  const quota = logUserBytes();
  const deltas = users.map((u) => delta.get(u)!);
  await tx.$executeRaw`
    INSERT INTO user_log_usage ("userId") SELECT unnest(${users}::text[]) ON CONFLICT ("userId") DO NOTHING`;
  await tx.$queryRaw`SELECT 1 FROM user_log_usage WHERE "userId" = ANY(${users}::text[]) ORDER BY "userId" FOR UPDATE`;
  const over = await tx.$queryRaw<{ id: string; bytes: bigint }[]>`
    UPDATE user_log_usage u SET bytes = GREATEST(0, u.bytes + x.d)
    FROM unnest(${users}::text[], ${deltas}::bigint[]) AS x(id, d)
    WHERE u."userId" = x.id
    RETURNING u."userId" AS id, u.bytes`;
  for (const u of over) {
    const excess = Number(u.bytes) - Math.floor(quota * TRIM_TO);
    if (Number(u.bytes) <= quota || excess <= 0) continue;
    const [freed] = await tx.$queryRaw<{ bytes: bigint | null }[]>`
      WITH e AS (
        SELECT id, "logBytes" AS b, SUM("logBytes") OVER (ORDER BY COALESCE("finishedAt", "submittedAt"), id) AS cum
        FROM job WHERE "userId" = ${u.id} AND state NOT IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING') AND "logBytes" > 0
      ), pick AS (SELECT id, b FROM e WHERE cum - b < ${excess}),
      gone AS (DELETE FROM job_log_chunk WHERE "jobId" IN (SELECT id FROM pick)),
      done AS (
        UPDATE job j SET "logDroppedBytes" = j."logDroppedBytes" + j."logBytes", "logBytes" = 0
        FROM pick WHERE j.id = pick.id RETURNING pick.b
      )
      SELECT SUM(b)::bigint AS bytes FROM done`;
    const bytes = Number(freed?.bytes ?? 0);
    if (bytes > 0) await tx.$executeRaw`UPDATE user_log_usage SET bytes = GREATEST(0, bytes - ${bytes}) WHERE "userId" = ${u.id}`;
  }
}
