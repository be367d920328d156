import type { Tx } from "@tranche/db";
import { formatBytes, type LogChunk } from "@tranche/contracts";

const MiB = 1024 * 1024;
/** Default log retention per job: the newest 64 MiB. */
export const DEFAULT_LOG_RETENTION_BYTES = 64 * MiB;
const MIN_RETENTION = MiB;
const MAX_RETENTION = 1024 * MiB;
/** Once over the retention, the oldest chunks go until this share of it is left (one trim per ~10% of output). */
const TRIM_TO = 0.9;

/**
 * The log bytes the control plane keeps per job: TRANCHE_LOG_RETENTION_BYTES, a number of bytes or a
 * size such as `64MiB` or `1GiB` (1 MiB to 1 GiB), default 64 MiB. A bad value is an error naming it,
 * never silently replaced.
 */
export function logRetentionBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TRANCHE_LOG_RETENTION_BYTES?.trim();
  if (!raw) return DEFAULT_LOG_RETENTION_BYTES;
  const m = /^(\d+)\s*(B|KiB|MiB|GiB)?$/i.exec(raw);
  const unit = { b: 1, kib: 1024, mib: MiB, gib: 1024 * MiB }[(m?.[2] ?? "b").toLowerCase()] ?? 1;
  const bytes = m ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < MIN_RETENTION || bytes > MAX_RETENTION)
    throw new Error(
      `TRANCHE_LOG_RETENTION_BYTES must be a size from ${formatBytes(MIN_RETENTION)} to ${formatBytes(MAX_RETENTION)} (bytes, or e.g. 64MiB), not '${raw}'`,
    );
  return bytes;
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
  const rows = await tx.$queryRaw<{ id: number; over: boolean }[]>`
    UPDATE job j SET "logBytes" = j."logBytes" + x.add
    FROM unnest(${ids}::int[], ${ids.map((i) => add.get(i)!)}::int[]) AS x(id, add)
    WHERE j.id = x.id
    RETURNING j.id, j."logBytes" > ${retention} AS over`;
  for (const { id } of rows.filter((r) => r.over)) {
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
    if (bytes > 0)
      await tx.$executeRaw`
        UPDATE job SET "logBytes" = GREATEST(0, "logBytes" - ${bytes}), "logDroppedBytes" = "logDroppedBytes" + ${bytes}
        WHERE id = ${id}`;
  }
}
