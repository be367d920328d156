import type { PendingReasons } from "./pending-reasons";
import type {
  NodeState,
  PendingReasonCode,
  StartReasonCode,
  PreemptReasonCode,
  NodeStateReasonCode,
  JobLane,
  Placement,
  DependencyCondition,
  DependencyState,
  HoldRole,
} from "./types";
/**
 * What one cycle returns (SPEC §3-§5): the plan (data, applied elsewhere, idempotent by job and
 * node id), the pending reasons (R10) and the cycle result with ratios, reservations and stats.
 * Part of the core's public types (types.ts re-exports it): changes are additive only.
 */

// ---------------------------------------------------------------------------------------------
// Plan (output): data, applied elsewhere, idempotent by jobId / nodeId
// ---------------------------------------------------------------------------------------------

export interface StartOp {
  op: "START";
  jobId: string;
  budgetId: string;
  userId: string;
  gpus: number;
  placement: Placement[];
  /** Allocated occupancy (charged to the budget, protected for minRuntime) or unallocated. */
  charged: boolean;
  lane: JobLane;
  /**
   * Jobs preempted for this one (their PREEMPT ops are in the same plan): launch only once all of
   * them have exited, at the latest at `startBy`. Empty when the GPUs are free now.
   *
   * A move (R12) is the one START whose list names its own job: the job is RUNNING, the same plan
   * preempts it with CONSOLIDATION, and this START relaunches it on `placement` once its old
   * processes have exited (never two copies at once). Apply it only with that PREEMPT (see
   * isMove, viableStarts); without it the job is simply preempted and requeued.
   */
  afterExitOf: string[];
  /** Latest time the job can start: now, or the latest graceUntil of the victims. */
  startBy: number;
  /** Protection ends at start + minRuntime; computed here from startBy (the latest start). */
  protectedUntil: number;
  reason: StartReason;
}

export interface StartReason {
  code: StartReasonCode;
  sentence: string;
  /** 1-based position in this cycle's order. */
  position: number;
  /** The budget's projected ratio when the job was taken. */
  ratio: number;
}

export interface PreemptOp {
  op: "PREEMPT";
  jobId: string;
  budgetId: string;
  gpus: number;
  /** The pending job this makes room for; null for a drain (R8). */
  byJobId: string | null;
  reasonCode: PreemptReasonCode;
  sentence: string;
  /** SIGTERM now, SIGKILL at graceUntil (R6). */
  gracePeriod: number;
  graceUntil: number;
  /** Requeued with its original submit time (resumable, or asked to be requeued). */
  requeue: boolean;
  /** GPU-seconds since the victim's latest start (SPEC §4 preempted GPU-hours). */
  lostGpuSeconds: number;
  details: {
    victimRatio: number;
    preemptorRatio: number | null;
    nodeIds: string[];
  };
}

export interface NodeStateOp {
  op: "NODE_STATE";
  nodeId: string;
  from: NodeState;
  to: NodeState;
  reason: NodeStateReasonCode;
  sentence: string;
  /** R8: fire the optional repair hook (a node that became REPAIR). */
  runRepairHook: boolean;
}

export interface LostOp {
  op: "LOST";
  jobId: string;
  budgetId: string;
  gpus: number;
  /** The DOWN node(s) that took it. */
  nodeIds: string[];
  /** R9: requeued at once when resumable or when it asked to be. */
  requeue: boolean;
  /** Its segment is still charged when it was allocated occupancy. */
  charged: boolean;
  sentence: string;
}

export interface ReserveOp {
  op: "RESERVE";
  jobId: string;
  nodeIds: string[];
  from: number;
  sentence: string;
}

/**
 * A job that reached its maxRuntime (SPEC §2 debug lane, R7's "jobs with maxRuntime at their end"):
 * SIGTERM now, SIGKILL after its grace; it ends KILLED and is not requeued.
 */
export interface KillOp {
  op: "KILL";
  jobId: string;
  budgetId: string;
  gpus: number;
  gracePeriod: number;
  graceUntil: number;
  sentence: string;
}

export type PlanOp = StartOp | PreemptOp | NodeStateOp | LostOp | KillOp | ReserveOp;

// ---------------------------------------------------------------------------------------------
// Explanations (R10)
// ---------------------------------------------------------------------------------------------

/** Numbers every pending reason carries. */
export interface PendingReasonDetails {
  /** 1-based position in this cycle's order; null when the job was not ordered (HELD, INVALID_CONTRACT). */
  position: number | null;
  /** Jobs ahead of it in this cycle's order (position - 1, or 0). */
  jobsAhead: number;
  /** Its budget's projected ratio at the moment it was considered (Infinity = no entitlement). */
  ratio: number;
  gpus: number;
  /** Largest number of GPUs free on one schedulable node when it was considered. */
  largestFreeGpus: number;
  /** Earliest time it could start when known (estimate from protection ends and max runtimes). */
  earliestStart: number | null;
  /** RESERVED_FOR: the job holding the reservation. */
  reservedForJobId?: string;
  /** RESERVED_FOR: when that reservation starts. */
  reservedFrom?: number;
  /** DEBUG_RESERVE: the GPUs kept free for debug-lane jobs on this cluster (R5). */
  debugReserveGpus?: number;
  /** DEBUG_USER_CAP: debug GPUs the user holds and the cap. */
  userDebugGpus?: number;
  debugCap?: number;
  /** BUDGET_OVER_SHARE: the lowest ratio among the victims' budgets it would need, and the margin. */
  victimRatio?: number;
  margin?: number;
  /** DEBUG_VICTIM_COST: the most R6 cost, GPU-seconds, a debug-lane job may make one victim lose (R5). */
  debugVictimMaxCost?: number;
  /** PLANNED_DRAIN: the node whose planned drain it would cross, when that drain is due, and the job's protection then (seconds). */
  drainNode?: string;
  drainAt?: number;
  drainSpan?: number;
  /** INVALID_CONTRACT: what is wrong; NODE_CONSTRAINT: why its node lists leave it no node in service, ever. */
  problem?: string;
  /** DEPENDENCY: the dependencies still waited for; DEPENDENCY_NEVER_SATISFIED: the ones that cannot be met. */
  dependencies?: { jobId: string; condition: DependencyCondition; state: DependencyState }[];
  /** ARRAY_LIMIT: the array, its tasks running now and its cap. */
  arrayId?: string;
  arrayRunning?: number;
  arrayMaxRunning?: number;
  /** USER_LIMIT: GPUs the user holds in this budget and the budget's per-user limit. */
  userGpus?: number;
  userLimit?: number;
  /** HELD: who held it (their display name, and their role or "owner") and when; absent when not known. */
  heldByName?: string;
  heldByRole?: HoldRole;
  heldAt?: number;
}

export interface PendingReason {
  code: PendingReasonCode;
  /** Deterministic human sentence with the numbers. */
  sentence: string;
  details: PendingReasonDetails;
}

// ---------------------------------------------------------------------------------------------
// Cycle result
// ---------------------------------------------------------------------------------------------

export interface TreeNodeRatio {
  treeNodeId: string;
  name: string;
  parentId: string | null;
  /** Product of allocations along the path, as a fraction of the cluster (0..1). */
  effectiveAllocation: number;
  usageGpuSeconds: number;
  entitlementGpuSeconds: number;
  /** usage / entitlement; Infinity when the node has zero allocation or zero entitlement. */
  ratio: number;
  /** Charged GPUs held at the start of the cycle (running, not stopping). */
  heldGpus: number;
  /** (usage + heldGpus * horizon) / entitlement at the start of the cycle. */
  projectedRatio: number;
  /** Same, after this cycle's starts and preemptions. */
  projectedRatioAfter: number;
}

export interface Reservation {
  jobId: string;
  gpus: number;
  nodeIds: string[];
  /** Earliest time enough GPUs free up on those nodes (R7). */
  from: number;
}

export interface CycleStats {
  nodes: number;
  schedulableNodes: number;
  totalGpus: number;
  /** GPUs on READY healthy nodes. */
  schedulableGpus: number;
  /** Free GPUs on schedulable nodes after the plan (SPEC §4 fragmentation input). */
  idleGpusAfter: number;
  running: number;
  pending: number;
  started: number;
  startedGpus: number;
  preempted: number;
  preemptedGpus: number;
  lost: number;
  /** Jobs stopped for reaching their maxRuntime (KILL ops). */
  killed: number;
  reservations: number;
  /** Allocated (debug or regular) jobs still pending after the plan, HELD excluded. */
  blockedAllocated: number;
  /** Full preemption searches run (bounded by policy.maxPreemptionSearches). */
  preemptionSearches: number;
}

export interface CycleResult {
  now: number;
  clusterId: string;
  /**
   * Operations, in a deterministic order: NODE_STATE to DRAINING/DOWN, LOST, KILL (maxRuntime reached,
   * by job id), then drains by node
   * (PREEMPT with DRAIN, or NODE_STATE DRAINING -> REPAIR), then per pending job in order its
   * PREEMPTs and START, or its RESERVE.
   */
  plan: PlanOp[];
  /** Pending job ids in the order this cycle took them (R2, R3, R5); HELD and INVALID_CONTRACT jobs are not ordered. */
  order: string[];
  /** Exactly one reason per job still pending after the plan (including HELD), by job id. */
  pending: PendingReasons;
  ratios: TreeNodeRatio[];
  reservations: Reservation[];
  stats: CycleStats;
}
