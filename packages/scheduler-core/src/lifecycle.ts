import type { NodeState } from "./types";

/**
 * The rules for what happens between cycles, shared by the database (the worker and the agent
 * protocol), the simulator and the testkit's cluster model, so a run's end and a node's report mean
 * the same thing everywhere.
 */

/** Why a running job was asked to stop: the scheduler preempted it, it reached maxRuntime, or someone cancelled it. */
export type StopIntent = "PREEMPT" | "KILL" | "CANCEL";

/** How a run segment ended (the database's SegmentEnd). */
export type RunEnd = "FINISH" | "FAIL" | "PREEMPT" | "KILL" | "LOST" | "CANCEL";

/**
 * A job's state after its run ended. PENDING = requeued. PREEMPTED = the scheduler stopped it and did
 * not requeue it: not the job's failure, so never FAILED (Slurm's PREEMPTED end state).
 */
export type EndedJobState = "PENDING" | "COMPLETED" | "FAILED" | "PREEMPTED" | "CANCELLED" | "KILLED" | "LOST";

export interface RunOutcome {
  end: RunEnd;
  state: EndedJobState;
  requeued: boolean;
  /** Set when the platform's own stop decided the outcome (a fence or an agent shutdown), not the job. */
  stoppedBy: "fence" | "shutdown" | null;
  /** Set when `--retries` requeues a failed run: which retry this is (1 = the first). */
  retry?: number;
}

/**
 * Why a run's processes are gone: "exit" (they ended, or were ended as asked), "lost" (the node went
 * DOWN, R9), "fenced" (the agent lost the control plane past the heartbeat timeout and stopped them
 * itself, R9 fencing), "shutdown" (the agent was shut down with the platform and stopped them) or
 * "launch-failed" (the job's own command or environment could not be started at all).
 */
export type RunEndCause = "exit" | "lost" | "fenced" | "shutdown" | "launch-failed";

/**
 * What a run's end means for its job (R6 requeue, R9 loss and fencing, maxRuntime kills, cancels).
 * `requeue` is the decision the core recorded when it stopped the run: the PREEMPT op's (kept on the
 * run while it winds down) or the LOST op's. A run that was not stopped by anyone ends on its exit code.
 * A platform stop (fence, shutdown) is never the job's failure: a fenced run is lost (requeued when it
 * may be); a run stopped by a shutdown is requeued like a preemption when it may be, else lost. A run
 * already asked to stop ends as its stop intent says, whoever ended its processes.
 *
 * `--retries N` (`run.retries`): a run that failed by itself (a non-zero exit, not a platform stop,
 * not a stop anyone asked for, not a launch failure: that would fail the same way on every node) is
 * requeued with its original submit time until it has been retried N times; the last failure is final.
 */
export function runOutcome(
  run: {
    stopping: boolean;
    intent: StopIntent | null;
    requeue: boolean;
    /** The job's `--retries` and how many of them its earlier runs used; absent = none. */
    retries?: { max: number; used: number } | undefined;
  },
  end: { cause: RunEndCause; exitCode: number | null },
): RunOutcome {
  const lost = (stoppedBy: RunOutcome["stoppedBy"]): RunOutcome =>
    run.requeue
      ? { end: "LOST", state: "PENDING", requeued: true, stoppedBy }
      : { end: "LOST", state: "LOST", requeued: false, stoppedBy };
  if (end.cause === "lost") return lost(null);
  if (!run.stopping && end.cause === "fenced") return lost("fence");
  if (!run.stopping && end.cause === "shutdown")
    return run.requeue ? { end: "PREEMPT", state: "PENDING", requeued: true, stoppedBy: "shutdown" } : lost("shutdown");
  if (run.stopping) {
    if (run.intent === "PREEMPT")
      return run.requeue
        ? { end: "PREEMPT", state: "PENDING", requeued: true, stoppedBy: null }
        : { end: "PREEMPT", state: "PREEMPTED", requeued: false, stoppedBy: null };
    if (run.intent === "KILL") return { end: "KILL", state: "KILLED", requeued: false, stoppedBy: null };
    return { end: "CANCEL", state: "CANCELLED", requeued: false, stoppedBy: null };
  }
  if (end.cause !== "launch-failed") {
    if (end.exitCode === 0) return { end: "FINISH", state: "COMPLETED", requeued: false, stoppedBy: null };
    const r = run.retries;
    if (r !== undefined && r.used < r.max)
      return { end: "FAIL", state: "PENDING", requeued: true, stoppedBy: null, retry: r.used + 1 };
  }
  return { end: "FAIL", state: "FAILED", requeued: false, stoppedBy: null };
}

/**
 * R8/R9: the state a node moves to when its agent reports, or null to stay. A DOWN node whose agent
 * is back is READY when healthy, REPAIR when not; a node never heard from (just enrolled, or timed out
 * before its agent ever spoke) becomes READY on its first healthy report; a healthy report ends an automatic repair. A DRAINING node keeps
 * draining (the core moves it to REPAIR once empty), and a drain an operator asked for ends only when
 * the operator says so (`manualDrain`).
 */
export function nodeStateAfterReport(
  node: { state: NodeState; heardFrom: boolean; manualDrain: boolean },
  healthy: boolean,
): NodeState | null {
  if (node.state === "DOWN") {
    if (node.heardFrom) return healthy ? "READY" : "REPAIR";
    // Enrolled, or timed out before its agent ever spoke: the first healthy report makes it READY.
    return healthy ? "READY" : null;
  }
  if (node.state === "REPAIR" && !node.manualDrain && healthy) return "READY";
  return null;
}
