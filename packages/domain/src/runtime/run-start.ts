import type { Tx } from "@tranche/db";
import type { StartOp } from "@tranche/scheduler-core";

export interface RunStart {
  /** When the new run starts: the core's startBy, or the end of the job's previous run if that is later. */
  startedAt: Date;
  /** The core's protectedUntil, moved on by as much as the start was. */
  protectedUntil: Date;
  /** When the STARTED event is stamped: the cycle's time, or the end of the previous run if that is later. */
  decidedAt: Date;
}

/**
 * When each START of a cycle begins its run. A run never starts before its job's previous run ended: the
 * cycle's time is whole seconds, while an agent reports an exit to the millisecond, so a job retried (or
 * requeued) in the second its run ended was started up to a second before that end. The two runs then
 * overlapped, the overlap was charged twice, and the timeline read Started before Back in the queue.
 */
export async function runStarts(tx: Tx, starts: StartOp[], now: number): Promise<(s: StartOp) => RunStart> {
  const rows = await tx.$queryRaw<{ jobId: number; endedAt: Date }[]>`
    SELECT "jobId", max("endedAt") AS "endedAt" FROM run_segment
    WHERE "jobId" = ANY(${starts.map((s) => Number(s.jobId))}::int[]) AND "endedAt" IS NOT NULL
    GROUP BY "jobId"`;
  const previousEnd = new Map(rows.map((r) => [String(r.jobId), r.endedAt.getTime()]));
  return (s) => {
    const end = previousEnd.get(s.jobId) ?? -Infinity;
    const start = Math.max(s.startBy * 1000, end);
    return {
      startedAt: new Date(start),
      protectedUntil: new Date(s.protectedUntil * 1000 + (start - s.startBy * 1000)),
      decidedAt: new Date(Math.max(now * 1000, end)),
    };
  };
}
