/**
 * R9, an exit reported after its run was declared lost: the agent was paused or cut off past
 * heartbeatTimeout + fenceGrace, so the control plane closed the run (LOST) and requeued the job when
 * it could; then the agent came back and reported that the process had ended by itself. The fence
 * still decides that no job runs twice at once; this rule decides only that a platform fault does not
 * end a job that in fact finished. Times are epoch seconds on the control plane's clock.
 */
export interface LateExit {
  exitCode: number | null;
  /** The agent stopped the process itself (its fence, or a shutdown): not the job's own end. */
  stoppedByPlatform: boolean;
  /** When the process ended. */
  endedAt: number;
  /** When the node's agent would have begun to stop it (its last heartbeat + heartbeatTimeout); null when unknown. */
  fenceAt: number | null;
}

/**
 * "complete": the job finished (exit code 0) before the fence could have touched it and was not started
 * again: it is COMPLETED, not lost or run again. "started-again": it finished so, but a new run had already
 * begun, which goes on (its timeline says so). "lost": the loss stands (an exit after the fence began,
 * one the platform caused, a failure, or a job that has since ended otherwise).
 */
export type LateExitOutcome = "complete" | "started-again" | "lost";

export function lateExitOutcome(exit: LateExit, job: { state: string; startedAgain: boolean }): LateExitOutcome {
  const finishedInTime = exit.exitCode === 0 && !exit.stoppedByPlatform && exit.fenceAt !== null && exit.endedAt < exit.fenceAt;
  if (!finishedInTime) return "lost";
  if (job.startedAgain) return "started-again";
  return job.state === "LOST" || job.state === "PENDING" || job.state === "HELD" ? "complete" : "lost";
}
