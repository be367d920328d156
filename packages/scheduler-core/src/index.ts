/**
 * @tranche/scheduler-core: the scheduling policy of SPEC R1-R11 as pure, deterministic code.
 *
 * One entry point decides a cycle for one cluster:
 *
 *   runCycle(snapshot, policy, now) -> { plan, order, pending, ratios, reservations, stats }
 *
 * createScheduler(policy).runCycle(snapshot, now) gives the same results and keeps its working state
 * between the cycles of one cluster (see scheduler.ts for what a caller does to benefit).
 *
 * The worker loads the snapshot from Postgres and applies the plan; the simulator replays traces in
 * virtual time with the very same function; the web what-if view calls it on an edited snapshot.
 * Everything else exported here is a helper those callers share so nobody keeps a second copy of a
 * policy rule: contract validation, window aggregates (usage, entitlement), ratios and the SPEC §4
 * measures.
 *
 * No I/O, no clock, no randomness: time is the `now` argument (integer seconds).
 */
export type * from "./types";
export {
  NODE_STATES,
  NODE_HEALTHS,
  PENDING_REASON_CODES,
  START_REASON_CODES,
  PREEMPT_REASON_CODES,
  isPreemptReasonCode,
  NODE_STATE_REASON_CODES,
  JOB_LANES,
} from "./types";

export { defaultPolicy, resolvePolicy } from "./policy";
export {
  nodeSize,
  isDebugLane,
  isAllocated,
  protectionEnd,
  gracePeriodFor,
  requeueAfterPreemption,
  minRuntimeCap,
  validateJobContract,
  validateJobContractOn,
  clusterShape,
  startedRun,
} from "./contract";
export { nodeListProblem, nodesLeftProblem, type NodeListProblem } from "./node-constraints";
export { extendProtection, type ExtendProtectionResult } from "./extend-protection";
export { validateBudgetTree, effectiveAllocations, PPM } from "./budget-tree";
export { computeUsage, computeEntitlements, withWindowAggregates } from "./window";
export { computeRatios } from "./compute-ratios";
export { planNodeStates } from "./plan-drains";
export { crossesPlannedDrain, drainSpan, hasPlannedDrain, plannedDrainText } from "./planned-drains";
export { runCycle } from "./run-cycle";
export {
  forecastStarts,
  accrueWindow,
  FORECAST_DEFAULT_HORIZON,
  FORECAST_DEFAULT_MAX_STEPS,
  type StartForecast,
  type ForecastOptions,
  type ForecastResult,
  type ForecastUnknown,
} from "./forecast-starts";
export { classifyJob, laneOf, type JobClass } from "./classify-job";
export { dependencyStatus } from "./cycle/job-rules";
export { createScheduler, type Scheduler } from "./scheduler";
export { PendingBacklog, type BacklogChanges } from "./pending-backlog";
export { parseDuration, durationProblem } from "./duration";
export { PendingReasons } from "./pending-reasons";
export { heldWords } from "./held-words";
export * from "./measures/index";
// Baseline policies (priority, fifo) maintained alongside, for simulator comparisons.
export * from "./baselines/index";
export {
  runOutcome,
  nodeStateAfterReport,
  type StopIntent,
  type RunEnd,
  type RunEndCause,
  type RunOutcome,
  type EndedJobState,
} from "./lifecycle";
export { lateExitOutcome, type LateExit, type LateExitOutcome } from "./late-exit";
export {
  createClusterModel,
  snapshotOf,
  submitJob,
  applyPlan,
  viableStarts,
  isMove,
  runExited,
  graceEnded,
  cancelJob,
  nodeReported,
  operatorMovedNode,
  jobStateOf,
  type ClusterModel,
  type ModelJob,
  type ModelNode,
  type ModelRun,
  type ModelJobState,
} from "./cluster-model";
