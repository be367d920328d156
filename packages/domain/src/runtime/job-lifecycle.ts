import { AGENT_SHUTDOWN, FENCED, LAUNCH_FAILED, UNTRACKED, type JobEventKind } from "@tranche/contracts";
import type { Tx } from "@tranche/db";
import { isPreemptReasonCode, requeueAfterPreemption, runOutcome, type EndedJobState } from "@tranche/scheduler-core";
import { chargeOpenSegments } from "./charge";
import { AGENTS_CHANNEL } from "./agent-wait";
import { fromSec, toSec } from "./time";

/**
 * How a run ends. A run segment carries its stop intent in `endReason` while it is still open
 * (`endedAt` null): PREEMPT (the scheduler preempted it), KILL (it reached maxRuntime). A STOPPING job
 * whose segment has no intent was cancelled by its owner or an operator. When the processes are gone
 * (an agent's exit report) or the node is DOWN (R9), the segment is closed and charged up to its end,
 * and the job moves to its next state in the same transaction.
 */

export type SegmentEnd = "FINISH" | "FAIL" | "PREEMPT" | "KILL" | "LOST" | "CANCEL";

export interface RunToClose {
  jobId: number;
  segmentId: bigint;
  jobState: string;
  /** The stop intent stored on the open segment. */
  intent: string | null;
  resumable: boolean;
  requeuePolicy: string;
  /** The core's requeue decision stored with the stop intent (null: none stored). */
  requeue?: boolean | null;
  /** The job's `--retries` and how many its earlier runs used (the core's runOutcome decides a retry). */
  retries?: { max: number; used: number };
  charged: boolean;
  gpus: number;
}

export interface RunEnd {
  endedAt: Date;
  /** "exit" = the agent reported the processes gone; "lost" = its node went DOWN. */
  cause: "exit" | "lost";
  exitCode: number | null;
  signal: string | null;
  cycleId?: bigint | null;
  /** Sentence prefix from whoever decided (the core's LOST sentence, or the agent's exit). */
  sentence?: string;
  /** The core's requeue decision for a lost run (its LOST op). */
  requeue?: boolean;
  /** signal LAUNCH_FAILED: the agent's error (why the process could not be started). */
  launchError?: string | null;
  /** A lost run: when its agent would have begun to fence it (ISO), kept in the event for a late exit (late-exit.ts). */
  fenceAt?: string;
}

export interface RunOutcome {
  end: SegmentEnd;
  /** RUNNING: the old copy of a moved job ended (R12); the job runs on in its new segment. */
  state: EndedJobState | "RUNNING";
  requeued: boolean;
  eventKind: JobEventKind;
  sentence: string;
  /** The event's reason code when it is not the segment end (LAUNCH_FAILED, RETRY). */
  reasonCode?: string;
  /** Set when the core's runOutcome requeued this failed run for `--retries`: which retry it is. */
  retry?: number;
}

const SENTENCES: Record<string, (how: string) => { eventKind: JobEventKind; sentence: string }> = {
  "LOST/PENDING": () => ({ eventKind: "LOST", sentence: "requeued at once with its original submit time." }),
  "LOST/LOST": () => ({ eventKind: "LOST", sentence: "not requeued (not resumable and did not ask to be)." }),
  "PREEMPT/PENDING": (how) => ({
    eventKind: "REQUEUED",
    sentence: `Preempted run ended (${how}); requeued with its original submit time.`,
  }),
  "PREEMPT/PREEMPTED": (how) => ({
    eventKind: "PREEMPTED_ENDED",
    sentence: `Preempted run ended (${how}); not requeued (not resumable and did not ask to be).`,
  }),
  "KILL/KILLED": (how) => ({ eventKind: "KILLED", sentence: `Killed at its maximum runtime (${how}).` }),
  "CANCEL/CANCELLED": (how) => ({ eventKind: "CANCELLED", sentence: `Cancelled; its processes ended (${how}).` }),
  "FINISH/COMPLETED": () => ({ eventKind: "FINISHED", sentence: "Finished (exit code 0)." }),
  "FAIL/FAILED": (how) => ({ eventKind: "FAILED", sentence: `Failed (${how}).` }),
};

/** How a process ended, in words: the agent's markers (NEVER_STARTED, UNKNOWN) are not signals a person knows. */
export function exitText(exitCode: number | null, signal: string | null): string {
  if (exitCode !== null) return `exit code ${exitCode}`;
  if (signal === "NEVER_STARTED") return "stopped before it launched";
  if (signal === "UNKNOWN") return "its agent lost track of the process";
  if (signal === "LAUNCH_FAILED") return "it could not be launched";
  return signal ? `signal ${signal}` : "unknown exit";
}

/**
 * What a run's end means for its job: the core's runOutcome (R6 requeue, R9 loss, maxRuntime kills,
 * cancels, `--retries`), worded. The requeue decision is the core's: the one its PREEMPT op stored on
 * the segment, or the LOST op's; the job's own fields only decide for runs stopped before that was stored.
 */
export function decideRunOutcome(
  run: Omit<RunToClose, "jobId" | "segmentId" | "charged" | "gpus">,
  end: Pick<RunEnd, "cause" | "exitCode" | "signal" | "requeue" | "launchError">,
): RunOutcome {
  const requeue =
    end.requeue ??
    run.requeue ??
    requeueAfterPreemption({ resumable: run.resumable, requeueOnPreempt: run.requeuePolicy === "REQUEUE" });
  const how = exitText(end.exitCode, end.signal);
  const intent = run.intent === "PREEMPT" || run.intent === "KILL" ? run.intent : null;
  const stopping = run.jobState === "STOPPING";
  // No exit status at all: the processes went with their host (or the agent's container), not by the
  // job's doing, so they are lost like a node that went down; a run asked to stop still ends as asked.
  const untracked = end.cause === "exit" && end.exitCode === null && end.signal === UNTRACKED && !stopping;
  // The agent's report says who stopped the processes; the core's runOutcome decides what that means.
  const cause =
    end.cause === "lost" || untracked
      ? "lost"
      : end.signal === FENCED
        ? "fenced"
        : end.signal === AGENT_SHUTDOWN
          ? "shutdown"
          : end.signal === LAUNCH_FAILED
            ? "launch-failed"
            : "exit";
  const out = runOutcome({ stopping, intent, requeue, retries: run.retries }, { cause, exitCode: end.exitCode });
  const requeuedOrNot = out.requeued
    ? "requeued with its original submit time."
    : "not requeued (not resumable and did not ask to be).";
  if (out.stoppedBy === "fence")
    return {
      ...out,
      eventKind: "LOST",
      sentence: `Stopped by its node's agent, out of contact with the control plane past the heartbeat timeout; ${requeuedOrNot}`,
    };
  if (untracked)
    return {
      ...out,
      eventKind: "LOST",
      sentence: `Its agent, restarted, found neither its processes nor their exit status (they went down with the host); ${requeuedOrNot}`,
    };
  if (out.stoppedBy === "shutdown")
    // Tranche was stopped and the demo's agents stopped their jobs: a platform stop, never the job's failure.
    return {
      ...out,
      eventKind: out.requeued ? "REQUEUED" : "LOST",
      sentence: `Stopped because its node's agent shut down (Tranche was stopped); ${requeuedOrNot}`,
    };
  if (cause === "launch-failed" && !stopping)
    // The job's own command or environment could not be started (E2BIG, a missing program): its
    // failure, not the platform's, and never requeued — it would fail the same way on every node.
    return {
      ...out,
      eventKind: "FAILED",
      reasonCode: LAUNCH_FAILED,
      sentence: `Could not be started (${end.launchError ?? "no detail"}): failed, not requeued.`,
    };
  if (out.retry !== undefined)
    // A RETRIED event with the exit and the count, so the job's timeline says why it ran again.
    return {
      ...out,
      eventKind: "RETRIED",
      reasonCode: "RETRY",
      sentence: `Failed (${end.exitCode !== null ? `exit code ${end.exitCode}` : "no exit code"}); retry ${out.retry} of ${run.retries!.max}: requeued with its original submit time.`,
    };
  return { ...out, ...SENTENCES[`${out.end}/${out.state}`]!(how) };
}

/**
 * Close a run segment, charge it up to its end and move its job on; returns what happened, or null when
 * the run was already closed (by an agent's exit report and the worker's LOST racing each other) — the
 * segment and job rows are locked and re-read first, so the latest state decides and nothing is closed twice.
 */
export async function closeRun(
  tx: Tx,
  given: RunToClose,
  end: RunEnd,
  actor: { kind: "SCHEDULER" | "AGENT"; id: string | null },
): Promise<RunOutcome | null> {
  // Lock order job, then segment — the same order the worker's apply uses — so the two never deadlock.
  const job = await tx.$queryRaw<{ state: string; maxRetries: number; retryCount: number }[]>`
    SELECT state::text AS state, "maxRetries", "retryCount" FROM job WHERE id = ${given.jobId} FOR UPDATE`;
  const seg = await tx.$queryRaw<
    { endedAt: Date | null; endReason: string | null; endDetail: string | null; requeue: boolean | null }[]
  >`
    SELECT "endedAt", "endReason"::text AS "endReason", "endDetail", requeue FROM run_segment WHERE id = ${given.segmentId} AND "jobId" = ${given.jobId} FOR UPDATE`;
  // A preempted run keeps the reason its PREEMPT op stored (the Measures page counts preemptions by it);
  // its exit status is in the job's events.
  const preemptReason = seg[0]?.endReason === "PREEMPT" && isPreemptReasonCode(seg[0].endDetail) ? seg[0].endDetail : null;
  const state = job[0]?.state;
  if (!state || !seg[0] || seg[0].endedAt !== null || (state !== "RUNNING" && state !== "STOPPING")) return null;
  const newer = await tx.$queryRaw<{ id: bigint; nodeIds: string[] }[]>`
    SELECT s.id, ARRAY(SELECT p."nodeId" FROM segment_placement p WHERE p."segmentId" = s.id) AS "nodeIds"
    FROM run_segment s WHERE s."jobId" = ${given.jobId} AND s."endedAt" IS NULL AND s.id > ${given.segmentId}`;
  if (newer.length > 0) return await closeMovedCopy(tx, given, end, actor, newer[0]!.nodeIds, preemptReason);
  const retries = { max: job[0]!.maxRetries, used: job[0]!.retryCount };
  const run: RunToClose = { ...given, jobState: state, intent: seg[0].endReason, requeue: seg[0].requeue, retries };
  const outcome = decideRunOutcome(run, end);
  const retried = outcome.retry !== undefined;
  if (run.charged) await chargeOpenSegments(tx, end.endedAt, { segmentIds: [run.segmentId] });
  await tx.runSegment.update({
    where: { id: run.segmentId },
    data: {
      endedAt: end.endedAt,
      endReason: outcome.end,
      endDetail:
        outcome.end === "PREEMPT" && preemptReason !== null
          ? preemptReason
          : end.exitCode !== null
            ? `exit ${end.exitCode}`
            : outcome.reasonCode === LAUNCH_FAILED
              ? `${LAUNCH_FAILED}: ${end.launchError ?? ""}`.slice(0, 600)
              : (end.signal ?? null),
    },
  });
  const terminal = outcome.state !== "PENDING";
  await tx.job.update({
    where: { id: run.jobId },
    data: {
      state: outcome.state,
      graceUntil: null,
      protectedUntil: null,
      squattingSince: null,
      idleSince: null,
      exitCode: end.exitCode,
      exitSignal: end.signal,
      ...(terminal
        ? { finishedAt: end.endedAt }
        : {
            // Whole seconds like every start the scheduler writes, so a restart never precedes it.
            queuedAt: fromSec(toSec(end.endedAt)),
            requeueCount: { increment: 1 },
            ...(retried ? { retryCount: { increment: 1 } } : {}),
            reasonCode: null,
            reasonSentence: null,
            reasonDetails: undefined,
            queuePosition: null,
          }),
    },
  });
  await tx.jobEvent.create({
    data: {
      jobId: run.jobId,
      at: end.endedAt,
      kind: outcome.eventKind,
      reasonCode: outcome.reasonCode ?? outcome.end,
      sentence: end.sentence
        ? end.cause === "lost"
          ? end.sentence
          : `${end.sentence} ${outcome.sentence}`
        : `${outcome.eventKind === "LOST" ? "Lost: its node went down; " : ""}${outcome.sentence}`,
      details: {
        segmentId: String(run.segmentId),
        exitCode: end.exitCode,
        signal: end.signal,
        requeued: outcome.requeued,
        ...(end.launchError ? { launchError: end.launchError } : {}),
        ...(end.fenceAt ? { fenceAt: end.fenceAt } : {}),
      },
      actorKind: actor.kind,
      actorId: actor.id,
      cycleId: end.cycleId ?? null,
    },
  });
  return outcome;
}

/**
 * R12: the old copy of a moved job is gone. Only its segment closes (uncharged: moves are of
 * unallocated work); the job runs on in its newer segment, whose node may now launch it, so that
 * node's agent is woken. Not a requeue.
 */
async function closeMovedCopy(
  tx: Tx,
  run: RunToClose,
  end: RunEnd,
  actor: { kind: "SCHEDULER" | "AGENT"; id: string | null },
  newNodes: string[],
  preemptReason: string | null,
): Promise<RunOutcome> {
  const how = end.exitCode !== null ? `exit code ${end.exitCode}` : end.signal ? `signal ${end.signal}` : "unknown exit";
  const sentence = `Its old copy ended (${how}) after the move; it now starts on its new GPUs.`;
  await tx.runSegment.update({
    where: { id: run.segmentId },
    data: {
      endedAt: end.endedAt,
      endReason: "PREEMPT",
      endDetail: preemptReason ?? (end.exitCode !== null ? `exit ${end.exitCode}` : (end.signal ?? null)),
    },
  });
  // The row kept the old copy's SIGKILL time; a job stopping again since has its own, kept.
  await tx.job.updateMany({ where: { id: run.jobId, state: "RUNNING" }, data: { graceUntil: null } });
  await tx.jobEvent.create({
    data: {
      jobId: run.jobId,
      at: end.endedAt,
      kind: "MOVED" satisfies JobEventKind,
      reasonCode: "CONSOLIDATION",
      sentence: end.sentence && end.cause !== "lost" ? `${end.sentence} ${sentence}` : sentence,
      details: { segmentId: String(run.segmentId), exitCode: end.exitCode, signal: end.signal, requeued: false },
      actorKind: actor.kind,
      actorId: actor.id,
      cycleId: end.cycleId ?? null,
    },
  });
  await tx.$executeRaw`SELECT pg_notify(${AGENTS_CHANNEL}, ${JSON.stringify(newNodes)})`;
  return { end: "PREEMPT", state: "RUNNING", requeued: false, eventKind: "MOVED", sentence };
}
