import type { Tx } from "@tranche/db";

/**
 * Charging (SPEC §2 usage): allocated run segments feed the hourly usage ledger as they run.
 *
 * Each charge moves a segment's `chargedUntil` forward and adds exactly the GPU-seconds in between to
 * the (budget, cluster, hour) rows, split at hour boundaries, in one statement that locks the segment
 * rows: the worker's periodic charge and an agent's exit report (which charges up to the exit time)
 * can race without charging a second twice. A segment whose start is still in the future (waiting for
 * preempted victims to leave) is not charged yet.
 */
export async function chargeOpenSegments(
  tx: Tx,
  until: Date,
  where: { clusterId: string } | { segmentIds: bigint[] },
  /** Leave out segments whose job another transaction holds (the cycle's periodic charge: the next one catches up). */
  opts: { skipLocked?: boolean } = {},
): Promise<number> {
  if ("segmentIds" in where)
    return chargeRunEnds(
      tx,
      where.segmentIds.map((segmentId) => ({ segmentId, until })),
    );
  return charge(tx, { clusterId: where.clusterId, until, ends: null, skipLocked: opts.skipLocked === true });
}

/**
 * Charges runs that are about to close, each up to its own end, in one statement. A transaction that
 * closes several runs (a heartbeat's exits, a cycle's lost jobs) charges them all here first: its
 * ledger rows are then taken in one statement, in the order every charge takes them, and closing each
 * run finds nothing left to charge. Charged one by one in the order reported, two heartbeats took two
 * budgets' rows in opposite orders and deadlocked (40P01).
 */
export async function chargeRunEnds(tx: Tx, ends: { segmentId: bigint | string; until: Date }[]): Promise<number> {
  const once = [...new Map(ends.map((e) => [String(e.segmentId), e])).values()];
  if (once.length === 0) return 0;
  return charge(tx, { clusterId: null, until: null, ends: once, skipLocked: false });
}

async function charge(
  tx: Tx,
  c: {
    clusterId: string | null;
    until: Date | null;
    ends: { segmentId: bigint | string; until: Date }[] | null;
    skipLocked: boolean;
  },
): Promise<number> {
  const ids = c.ends ? c.ends.map((e) => String(e.segmentId)) : null;
  const untils = c.ends ? c.ends.map((e) => e.until.toISOString()) : null;
  // Skipping goes by the job: a job another transaction holds (a heartbeat closing its run) keeps its
  // segment out of reach, so this charge never waits on a row that transaction will ask for next. The
  // jobs are locked first, on their own (lock-order.ts: job before segment): skipping a row of a
  // `FOR UPDATE OF s, j SKIP LOCKED` kept the segment lock it had already taken, so the cycle held the
  // run of a job a heartbeat held, then waited for a ledger row that heartbeat had charged while the
  // heartbeat, closing that run, waited for its segment (40P01).
  const jobs = c.skipLocked
    ? (
        await tx.$queryRaw<{ id: number }[]>`
          SELECT id FROM job WHERE id IN (
            SELECT "jobId" FROM run_segment WHERE charged AND "endedAt" IS NULL AND "clusterId" = ${c.clusterId}::text
              AND GREATEST(COALESCE("chargedUntil", "startedAt"), "startedAt") < ${c.until}::timestamptz)
          ORDER BY id FOR UPDATE SKIP LOCKED`
      ).map((j) => j.id)
    : null;
  // Segments in id order, and ledger rows in (budget, cluster, hour) order: every charge takes its rows
  // in the same order, so two of them wait for each other instead of deadlocking.
  return tx.$executeRaw`
    WITH old AS (
      SELECT s.id, s."budgetId", s."clusterId", s.gpus, GREATEST(COALESCE(s."chargedUntil", s."startedAt"), s."startedAt") AS from_t,
             COALESCE(e.until, ${c.until}::timestamptz) AS to_t
      FROM run_segment s
      LEFT JOIN unnest(${ids}::bigint[], ${untils}::timestamptz[]) AS e(id, until) ON e.id = s.id
      WHERE s.charged AND s."endedAt" IS NULL
        AND (${c.clusterId}::text IS NULL OR s."clusterId" = ${c.clusterId}::text)
        AND (${ids}::bigint[] IS NULL OR s.id = ANY(${ids}::bigint[]))
        AND (${jobs}::int[] IS NULL OR s."jobId" = ANY(${jobs}::int[]))
        AND GREATEST(COALESCE(s."chargedUntil", s."startedAt"), s."startedAt") < COALESCE(e.until, ${c.until}::timestamptz)
      ORDER BY s.id
      FOR UPDATE OF s
    ), moved AS (
      UPDATE run_segment s SET "chargedUntil" = old.to_t FROM old WHERE s.id = old.id RETURNING s.id
    ), slices AS (
      SELECT old."budgetId", old."clusterId", h AS "hourStart",
             EXTRACT(EPOCH FROM (LEAST(h + interval '1 hour', old.to_t) - GREATEST(h, old.from_t))) * old.gpus AS gs
      FROM old, generate_series(date_trunc('hour', old.from_t, 'UTC'), old.to_t - interval '1 millisecond', interval '1 hour') h
    )
    INSERT INTO usage_ledger ("budgetId", "clusterId", "hourStart", "gpuSeconds")
    SELECT "budgetId", "clusterId", "hourStart", ROUND(SUM(gs))::bigint FROM slices
    GROUP BY "budgetId", "clusterId", "hourStart" HAVING ROUND(SUM(gs)) > 0
    ORDER BY "budgetId", "clusterId", "hourStart"
    ON CONFLICT ("budgetId", "clusterId", "hourStart")
    DO UPDATE SET "gpuSeconds" = usage_ledger."gpuSeconds" + EXCLUDED."gpuSeconds"`;
}

/** Healthy and total GPU-seconds of a cluster between two instants, split per hour (entitlement input). */
export async function addCapacity(
  tx: Tx,
  clusterId: string,
  from: Date,
  to: Date,
  healthyGpus: number,
  totalGpus: number,
): Promise<void> {
  if (to.getTime() <= from.getTime()) return;
  await tx.$executeRaw`
    INSERT INTO capacity_ledger ("clusterId", "hourStart", "healthyGpuSeconds", "totalGpuSeconds")
    SELECT ${clusterId}, h,
           ROUND(EXTRACT(EPOCH FROM (LEAST(h + interval '1 hour', ${to}::timestamptz) - GREATEST(h, ${from}::timestamptz))) * ${healthyGpus}::float8)::bigint,
           ROUND(EXTRACT(EPOCH FROM (LEAST(h + interval '1 hour', ${to}::timestamptz) - GREATEST(h, ${from}::timestamptz))) * ${totalGpus}::float8)::bigint
    FROM generate_series(date_trunc('hour', ${from}::timestamptz, 'UTC'), ${to}::timestamptz - interval '1 millisecond', interval '1 hour') h
    ON CONFLICT ("clusterId", "hourStart")
    DO UPDATE SET "healthyGpuSeconds" = capacity_ledger."healthyGpuSeconds" + EXCLUDED."healthyGpuSeconds",
                  "totalGpuSeconds" = capacity_ledger."totalGpuSeconds" + EXCLUDED."totalGpuSeconds"`;
}
