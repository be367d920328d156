import { LAUNCH_FAILED } from "@tranche/contracts";
import type { RunOutcome } from "./job-lifecycle";

/**
 * `--retries N`: a run that failed by itself (a non-zero exit, not a platform stop, not a command that
 * could not be started at all) goes back to the queue, with its original submit time, until it has
 * been retried N times; the last failure is final. Each retry is a RETRIED event with the exit and the
 * count, so the job's timeline says why it ran again.
 */
export function withRetry(
  outcome: RunOutcome,
  job: { maxRetries: number; retryCount: number },
  exitCode: number | null,
): { outcome: RunOutcome; retried: boolean } {
  const failed = outcome.end === "FAIL" && outcome.state === "FAILED" && outcome.reasonCode !== LAUNCH_FAILED;
  if (!failed || job.retryCount >= job.maxRetries) return { outcome, retried: false };
  const n = job.retryCount + 1;
  return {
    retried: true,
    outcome: {
      ...outcome,
      state: "PENDING",
      requeued: true,
      eventKind: "RETRIED",
      reasonCode: "RETRY",
      sentence: `Failed (${exitCode !== null ? `exit code ${exitCode}` : "no exit code"}); retry ${n} of ${job.maxRetries}: requeued with its original submit time.`,
    },
  };
}
