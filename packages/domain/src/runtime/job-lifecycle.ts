import { AGENT_SHUTDOWN, FENCED, LAUNCH_FAILED } from "@tranche/contracts";
import type { Tx } from "@tranche/db";
import { requeueAfterPreemption, runOutcome } from "@tranche/scheduler-core";
import { chargeOpenSegments } from "./charge";
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
}

export interface RunOutcome {
  end: SegmentEnd;
  state: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED" | "KILLED" | "LOST";
  requeued: boolean;
  eventKind: string;
  sentence: string;
  /** The event's reason code when it is not the segment end (LAUNCH_FAILED). */
  reasonCode?: string;
}

const SENTENCES: Record<string, (how: string) => { eventKind: string; sentence: string }> = {
  "LOST/PENDING": () => ({ eventKind: "LOST", sentence: "requeued at once with its original submit time." }),
  "LOST/LOST": () => ({ eventKind: "LOST", sentence: "not requeued (not resumable and did not ask to be)." }),
  "PREEMPT/PENDING": (how) => ({
    eventKind: "REQUEUED",
    sentence: `Preempted run ended (${how}); requeued with its original submit time.`,
  }),
  "PREEMPT/FAILED": (how) => ({
    eventKind: "PREEMPTED_ENDED",
    sentence: `Preempted run ended (${how}); not requeued (not resumable and did not ask to be).`,
  }),
  "KILL/KILLED": (how) => ({ eventKind: "KILLED", sentence: `Killed at its maxRuntime (${how}).` }),
  "CANCEL/CANCELLED": (how) => ({ eventKind: "CANCELLED", sentence: `Cancelled; its processes ended (${how}).` }),
  "FINISH/COMPLETED": () => ({ eventKind: "FINISHED", sentence: "Finished (exit code 0)." }),
  "FAIL/FAILED": (how) => ({ eventKind: "FAILED", sentence: `Failed (${how}).` }),
};

/**
 * What a run's end means for its job: the core's runOutcome (R6 requeue, R9 loss, maxRuntime kills,
 * cancels), worded. The requeue decision is the core's: the one its PREEMPT op stored on the segment,
 * or the LOST op's; the job's own fields only decide for runs stopped before that was stored.
 */
export function decideRunOutcome(
  run: Omit<RunToClose, "jobId" | "segmentId" | "charged" | "gpus">,
  end: Pick<RunEnd, "cause" | "exitCode" | "signal" | "requeue" | "launchError">,
): RunOutcome {
  const requeue =
    end.requeue ??
    run.requeue ??
    requeueAfterPreemption({ resumable: run.resumable, requeueOnPreempt: run.requeuePolicy === "REQUEUE" });
  const how = end.exitCode !== null ? `exit code ${end.exitCode}` : end.signal ? `signal ${end.signal}` : "unknown exit";
  const intent = run.intent === "PREEMPT" || run.intent === "KILL" ? run.intent : null;
  const stopping = run.jobState === "STOPPING";
  // Its agent lost the control plane and stopped it itself (R9 fencing): lost to the platform, not failed.
  const fenced = end.signal === FENCED && !stopping;
  const out = runOutcome({ stopping, intent, requeue }, fenced ? { cause: "lost", exitCode: null } : end);
  if (fenced)
    return {
      ...out,
      eventKind: "LOST",
      sentence: `Stopped by its node's agent, out of contact with the control plane past the heartbeat timeout; ${
        out.requeued ? "requeued with its original submit time." : "not requeued (not resumable and did not ask to be)."
      }`,
    };
  if (end.signal === AGENT_SHUTDOWN && !stopping) {
    // Tranche was stopped and the demo's agents stopped their jobs: a platform stop, never the job's
    // failure. Requeued as a preemption when it may be, else lost (not FAILED).
    const shut = requeue
      ? runOutcome({ stopping: true, intent: "PREEMPT", requeue }, end)
      : runOutcome({ stopping, intent, requeue }, { cause: "lost", exitCode: null });
    return {
      ...shut,
      eventKind: shut.requeued ? "REQUEUED" : "LOST",
      sentence: `Stopped because its node's agent shut down (Tranche was stopped); ${
        shut.requeued ? "requeued with its original submit time." : "not requeued (not resumable and did not ask to be)."
      }`,
    };
  }
  if (end.signal === LAUNCH_FAILED && !stopping)
    // The job's own command or environment could not be started (E2BIG, a missing program): its
    // failure, not the platform's, and never requeued — it would fail the same way on every node.
    return {
      ...out,
      eventKind: "FAILED",
      reasonCode: LAUNCH_FAILED,
      sentence: `Could not be started (${end.launchError ?? "no detail"}): failed, not requeued.`,
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
  const job = await tx.$queryRaw<{ state: string }[]>`SELECT state::text AS state FROM job WHERE id = ${given.jobId} FOR UPDATE`;
  const seg = await tx.$queryRaw<{ endedAt: Date | null; endReason: string | null; requeue: boolean | null }[]>`
    SELECT "endedAt", "endReason"::text AS "endReason", requeue FROM run_segment WHERE id = ${given.segmentId} AND "jobId" = ${given.jobId} FOR UPDATE`;
  const state = job[0]?.state;
  if (!state || !seg[0] || seg[0].endedAt !== null || (state !== "RUNNING" && state !== "STOPPING")) return null;
  const run: RunToClose = { ...given, jobState: state, intent: seg[0].endReason, requeue: seg[0].requeue };
  const outcome = decideRunOutcome(run, end);
  if (run.charged) await chargeOpenSegments(tx, end.endedAt, { segmentIds: [run.segmentId] });
  await tx.runSegment.update({
    where: { id: run.segmentId },
    data: {
      endedAt: end.endedAt,
      endReason: outcome.end,
      endDetail:
        end.exitCode !== null
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
      },
      actorKind: actor.kind,
      actorId: actor.id,
      cycleId: end.cycleId ?? null,
    },
  });
  return outcome;
}
