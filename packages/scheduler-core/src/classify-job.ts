import { gracePeriodFor, isAllocated, isDebugLane } from "./contract";
import type { JobContract, JobLane, PolicyConfig } from "./types";

/**
 * R5/R3 lanes: debug-lane jobs of budgets with entitlement first, then allocated work, then
 * unallocated work (minRuntime 0, or a budget without entitlement). A debug-shaped job that is not
 * allocated is ordinary unallocated work: the debug lane is charged work, so it cannot be a free
 * back door past allocated jobs.
 */
export function laneOf(
  job: Pick<JobContract, "gpus" | "minRuntime" | "maxRuntime">,
  budgetHasEntitlement: boolean,
  policy: Pick<PolicyConfig, "debugMaxRuntime" | "debugMaxGpus">,
): JobLane {
  if (!isAllocated(job, budgetHasEntitlement)) return "UNALLOCATED";
  return isDebugLane(job, policy) ? "DEBUG" : "ALLOCATED";
}

export interface JobClass {
  lane: JobLane;
  /** Allocated occupancy: charged to the budget (every lane but UNALLOCATED). */
  charged: boolean;
  /** R6: seconds between SIGTERM and SIGKILL when it is preempted. */
  grace: number;
  /** R4: seconds of protection after each start (0 for unallocated work). */
  protection: number;
}

/**
 * The one classification of a job: its lane, whether it is charged, its grace and its protection.
 * The core orders by it; the API, the submit form, the queue, the charts and cancel show or use it.
 * Views that do not know the budget's entitlement pass `true` (a budget with an allocation here).
 */
export function classifyJob(
  job: Pick<JobContract, "gpus" | "minRuntime" | "maxRuntime" | "gracePeriod">,
  hasEntitlement: boolean,
  policy: Pick<PolicyConfig, "debugMaxRuntime" | "debugMaxGpus" | "gracePeriod" | "unallocatedGracePeriod" | "maxGracePeriod">,
): JobClass {
  const lane = laneOf(job, hasEntitlement, policy);
  const charged = lane !== "UNALLOCATED";
  return { lane, charged, grace: gracePeriodFor(job, charged, policy), protection: charged ? job.minRuntime : 0 };
}
