import type { Tx } from "@tranche/db";
import type { StartOp } from "@tranche/scheduler-core";

export interface RunStart {
  /** When the new run starts: the core's startBy, or the latest end it must follow if that is later. */
  startedAt: Date;
  /** The core's protectedUntil, moved on by as much as the start was. */
  protectedUntil: Date;
  /** When the STARTED event is stamped: the cycle's time, or the latest end it must follow if that is later. */
  decidedAt: Date;
}

/**
 * When each START of a cycle begins its run. A run never starts before its job's previous run ended,
 * nor before a parent it waited for (`--after`, every task of a parent array) ended: the cycle's time is
 * whole seconds, while an agent reports an exit to the millisecond, so a job retried (or requeued) or
 * released by its parent in the second that run ended was started up to a second before that end. A
 * retry then overlapped its failed run, the overlap was charged twice, and the timeline read Started
 * before Back in the queue; a dependant read as started before the parent it waited for had finished.
 */
export async function runStarts(tx: Tx, starts: StartOp[], now: number): Promise<(s: StartOp) => RunStart> {
  const jobIds = starts.map((s) => Number(s.jobId));
  // A parent's finishedAt is its run's end as the agent reported it (closeRun), or when it was cancelled.
  // The parent and its array's tasks are two index lookups, as in dependency-state.ts (an OR scans the table).
  const rows = await tx.$queryRaw<{ jobId: number; endedAt: Date }[]>`
    SELECT "jobId", max("endedAt") AS "endedAt" FROM (
      SELECT "jobId", "endedAt" FROM run_segment WHERE "jobId" = ANY(${jobIds}::int[]) AND "endedAt" IS NOT NULL
      UNION ALL
      SELECT d."jobId", p."finishedAt" FROM job_dependency d
      CROSS JOIN LATERAL (
        SELECT "finishedAt" FROM job WHERE id = d."parentId"
        UNION ALL
        SELECT "finishedAt" FROM job WHERE "arrayJobId" = d."parentId" AND id <> d."parentId"
      ) p
      WHERE d."jobId" = ANY(${jobIds}::int[]) AND p."finishedAt" IS NOT NULL
    ) e
    GROUP BY "jobId"`;
  const latestEnd = new Map(rows.map((r) => [String(r.jobId), r.endedAt.getTime()]));
  return (s) => {
    const end = latestEnd.get(s.jobId) ?? -Infinity;
    const start = Math.max(s.startBy * 1000, end);
    return {
      startedAt: new Date(start),
      protectedUntil: new Date(s.protectedUntil * 1000 + (start - s.startBy * 1000)),
      decidedAt: new Date(Math.max(now * 1000, end)),
    };
  };
}
