import type { JobReport } from "@tranche/contracts";
import type { Tx } from "@tranche/db";
import { lateExitOutcome } from "@tranche/scheduler-core";

/** What the heartbeat read of a run the report names (agent-protocol.ts's SegmentRow, the fields used here). */
interface ClosedRun {
  id: bigint;
  jobId: number;
  endedAt: Date | null;
  endReason: string | null;
}

const REASON = "LATE_EXIT";

/**
 * R9, the core's lateExitOutcome: an agent back from a pause or a cut reports that a run the control
 * plane already declared lost had ended by itself with exit code 0 before its fence could begin. The job
 * is then COMPLETED (not left LOST, nor run again) when no new run has begun; when one has, it goes on,
 * and the job's timeline says that the lost run had finished. The segment keeps the end and the charge the
 * loss gave it (the ledger was charged to then). Called under the job's lock (the heartbeat's lockJobs);
 * a repeated report changes nothing more. Returns whether the job changed.
 */
export async function settleLateExit(
  tx: Tx,
  report: JobReport,
  run: ClosedRun,
  node: { id: string; name: string },
  onOurClock: (iso: string) => number,
  now: Date,
): Promise<boolean> {
  if (report.status !== "EXITED" || run.endedAt === null || run.endReason !== "LOST") return false;
  const segmentId = String(run.id);
  const lost = await tx.jobEvent.findFirst({
    where: { jobId: run.jobId, kind: "LOST", details: { path: ["segmentId"], equals: segmentId } },
    orderBy: { id: "asc" },
    select: { details: true },
  });
  const fenceIso = (lost?.details as { fenceAt?: unknown } | undefined)?.fenceAt;
  const fenceMs = typeof fenceIso === "string" ? Date.parse(fenceIso) : NaN;
  const endedMs = Math.min(report.endedAt ? onOurClock(report.endedAt) : now.getTime(), now.getTime());
  const rows = await tx.$queryRaw<{ state: string; startedAgain: boolean; noted: boolean }[]>`
    SELECT j.state::text AS state,
           EXISTS (SELECT 1 FROM run_segment s WHERE s."jobId" = j.id AND s.id > ${run.id}) AS "startedAgain",
           EXISTS (SELECT 1 FROM job_event e WHERE e."jobId" = j.id AND e."reasonCode" = ${REASON}
                   AND e.details->>'segmentId' = ${segmentId}) AS noted
    FROM job j WHERE j.id = ${run.jobId}`;
  const job = rows[0];
  if (!job || job.noted) return false;
  const outcome = lateExitOutcome(
    {
      exitCode: report.exitCode,
      stoppedByPlatform: report.signal !== null,
      endedAt: endedMs / 1000,
      fenceAt: Number.isFinite(fenceMs) ? fenceMs / 1000 : null,
    },
    job,
  );
  if (outcome === "lost") return false;
  const endedAt = new Date(endedMs);
  const details = { segmentId, exitCode: 0, signal: null, requeued: outcome === "started-again" };
  if (outcome === "started-again") {
    // requeued: true, as the loss it notes was (and the notification trigger files no "lost" for it).
    await tx.jobEvent.create({
      data: {
        jobId: run.jobId,
        at: now,
        kind: "LOST",
        reasonCode: REASON,
        sentence: `On node ${node.name}: the run lost while its agent was out of contact had in fact finished (exit code 0) before it could be stopped, but the job had already started again; the new run goes on.`,
        details,
        actorKind: "AGENT",
        actorId: node.id,
      },
    });
    return false;
  }
  await tx.runSegment.update({ where: { id: run.id }, data: { endReason: "FINISH", endDetail: "exit 0" } });
  await tx.job.update({
    where: { id: run.jobId },
    data: {
      state: "COMPLETED",
      finishedAt: endedAt,
      exitCode: 0,
      exitSignal: null,
      reasonCode: null,
      reasonSentence: null,
      queuePosition: null,
    },
  });
  await tx.jobEvent.create({
    data: {
      jobId: run.jobId,
      at: now,
      kind: "FINISHED",
      reasonCode: REASON,
      sentence: `On node ${node.name}: finished (exit code 0) before its agent, out of contact, could have stopped it; it was taken for lost, and is completed instead of lost or run again.`,
      details,
      actorKind: "AGENT",
    },
  });
  return true;
}
