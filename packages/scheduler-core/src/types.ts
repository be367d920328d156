import type { PendingReasons } from "./pending-reasons";
/**
 * Public types of the scheduling core (SPEC §2-§5).
 *
 * Conventions (they make sums exact and cycles reproducible):
 * - Times are integer seconds on one clock chosen by the caller (the worker uses Unix seconds, the
 *   simulator virtual seconds). The core never reads a clock: `now` is an argument.
 * - Durations are integer seconds. GPU time is integer GPU-seconds.
 * - Allocations are integer ppm (parts per million) of the parent's allocation, so "siblings sum
 *   to at most 1" is `sum <= 1_000_000`, checked exactly.
 * - Ratios are plain numbers; `Infinity` means "no entitlement" (JSON.stringify writes it as null).
 * - Arrays in inputs are read in the order given only where it cannot change a decision; every
 *   decision uses explicit tie-breaks (ids, names), so shuffling an input array yields the same
 *   result (R11).
 *
 * This file is the stable contract shared with the worker, the simulator and the web what-if view:
 * changes are additive only.
 */

// ---------------------------------------------------------------------------------------------
// States and codes (SCREAMING_SNAKE string literals, no TS enums)
// ---------------------------------------------------------------------------------------------

export const NODE_STATES = ["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"] as const;
/** SPEC §2 node states. Only `READY` nodes receive new work (R1). */
export type NodeState = (typeof NODE_STATES)[number];

export const NODE_HEALTHS = ["HEALTHY", "UNHEALTHY"] as const;
/** What the node agent last reported about itself. */
export type NodeHealth = (typeof NODE_HEALTHS)[number];

export const PENDING_REASON_CODES = [
  "HELD",
  "INVALID_CONTRACT",
  "CLUSTER_DRAINING",
  "DEBUG_USER_CAP",
  "NO_ENTITLEMENT",
  "RESERVED_FOR",
  "ORDER",
  "BUDGET_OVER_SHARE",
  "CONTRACTS",
  "CAPACITY",
] as const;
/**
 * SPEC §5 reason codes for a job still pending after a cycle, in precedence order: when several
 * apply, the first one in this list is reported (see explain-pending.ts for the exact test of each).
 * `INVALID_CONTRACT` is an addition to SPEC §5: a job that can never fit this cluster (it should
 * have been rejected at submit, see validateJobContract) still gets a reason instead of silence.
 */
export type PendingReasonCode = (typeof PENDING_REASON_CODES)[number];

export const START_REASON_CODES = [
  "FREE_GPUS",
  "BACKFILL",
  "RESERVATION",
  "PREEMPTED_UNALLOCATED",
  "PREEMPTED_INTERRUPTIBLE",
  "DEBUG_LANE",
] as const;
/**
 * Why a job starts: on free GPUs, as backfill on reserved nodes (R7), on the nodes reserved for it,
 * or after preempting unallocated work (R3), interruptible work (R4) or as a debug-lane job (R5).
 */
export type StartReasonCode = (typeof START_REASON_CODES)[number];

export const PREEMPT_REASON_CODES = ["UNALLOCATED_FOR_ALLOCATED", "FAIR_SHARE", "DEBUG_LANE", "DRAIN"] as const;
/**
 * Why a running job is preempted: R3 (unallocated work makes room for allocated work), R4 (an
 * interruptible job makes room for a budget that ranks ahead by more than the margin), R5 (a debug
 * job), R8 (its node is draining).
 */
export type PreemptReasonCode = (typeof PREEMPT_REASON_CODES)[number];

export const NODE_STATE_REASON_CODES = ["UNHEALTHY_REPORT", "DRAINED", "HEARTBEAT_TIMEOUT"] as const;
/** Why the core moves a node: unhealthy -> DRAINING, empty DRAINING -> REPAIR (R8), silent -> DOWN (R9). */
export type NodeStateReasonCode = (typeof NODE_STATE_REASON_CODES)[number];

/** Scheduling class of a job in a cycle: R5 debug lane first, then allocated, then unallocated (R3). */
export const JOB_LANES = ["DEBUG", "ALLOCATED", "UNALLOCATED"] as const;
export type JobLane = (typeof JOB_LANES)[number];

// ---------------------------------------------------------------------------------------------
// Policy
// ---------------------------------------------------------------------------------------------

/** Tunables of the policy. `defaultPolicy` (policy.ts) holds the SPEC defaults. */
export interface PolicyConfig {
  /** Sliding lookback window for usage and entitlement, seconds (SPEC default 7 days). */
  lookbackWindow: number;
  /** R2: running GPUs are projected to run this much longer when ranking, seconds (default 1 h). */
  projectionHorizon: number;
  /** R4: a preemptor's projected ratio must be below victimRatio * (1 - margin). Default 0.1. */
  preemptionMargin: number;
  /** Cap on a job's minRuntime, seconds (default 8 h). `Cluster.maxMinRuntime` overrides it. */
  maxMinRuntime: number;
  /** R5: a job is in the debug lane when maxRuntime <= this (default 15 min) ... */
  debugMaxRuntime: number;
  /** ... and gpus <= this (default 8). */
  debugMaxGpus: number;
  /** R5: GPUs one user may hold in the debug lane at once, running + started this cycle (default 8). */
  debugMaxGpusPerUser: number;
  /** R6: grace between SIGTERM and SIGKILL for allocated jobs, seconds (default 120). */
  gracePeriod: number;
  /** R6: grace for unallocated jobs, seconds (default 10). */
  unallocatedGracePeriod: number;
  /** R6: the most grace a job may ask for, seconds (default 10 min). */
  maxGracePeriod: number;
  /** R9: a node agent silent this long stops its own jobs (fencing), seconds (default 30). */
  heartbeatTimeout: number;
  /**
   * R9: the fencing agent's SIGTERM-to-SIGKILL time; a node silent for heartbeatTimeout + fenceGrace
   * is DOWN and its jobs lost (requeued): by then their processes are gone, so no job runs twice (default 10).
   */
  fenceGrace: number;
  /** SPEC §4: jobs with at least this many GPUs are "large" in queue-wait measures (default 64). */
  largeJobGpus: number;
  /** R7: how many blocked jobs get a reservation per cycle (default 1: the first blocked job). */
  maxReservations: number;
  /**
   * Speed bound: at most this many full preemption searches (a scan of every preemptible job) per
   * cycle. Searches that cannot succeed are skipped by cheap exact bounds first, so the cap only
   * matters on huge clusters full of interruptible work. Default 2,000.
   */
  maxPreemptionSearches: number;
  /**
   * Squatting: a running job flagged as likely squatting (`RunningJob.squattingSince`) for this long,
   * seconds, loses the rest of its protection and becomes interruptible. 0 = never (default): the
   * flag is then only shown, never acted on.
   */
  squattingUnprotectAfter: number;
}

// ---------------------------------------------------------------------------------------------
// Snapshot (input of one cycle, one cluster)
// ---------------------------------------------------------------------------------------------

export interface Cluster {
  id: string;
  name: string;
  gpuType: string;
  /** Cap on minRuntime for this cluster, seconds; null/undefined = policy.maxMinRuntime. */
  maxMinRuntime?: number | null;
}

/** A host with `gpuCount` GPUs, indexed 0..gpuCount-1. */
export interface Node {
  id: string;
  name: string;
  gpuCount: number;
  state: NodeState;
  health: NodeHealth;
  /** Last heartbeat received from the node agent; null = never heard from. */
  lastHeartbeatAt: number | null;
  /**
   * When the node entered its current state. A node never heard from is silent since then (it times
   * out like any other); without it (the simulator's nodes) a node never heard from is not timed out.
   */
  stateChangedAt?: number | null;
}

/**
 * One node of the budget tree with its per-cluster allocation and its window aggregates.
 * Leaves are Budgets; the root (parentId null) holds 100% of the cluster.
 */
export interface BudgetTreeNode {
  id: string;
  name: string;
  parentId: string | null;
  /** Current allocation on this cluster, ppm of the parent's allocation (root: 1_000_000). */
  allocationPpm: number;
  /**
   * Charged GPU-seconds inside the lookback window up to `now` (see computeUsage). Only leaves'
   * values are read: a parent's usage is always the sum of its children's (SPEC §2), recomputed.
   */
  usageGpuSeconds: number;
  /** Entitlement GPU-seconds inside the lookback window up to `now` (see computeEntitlements). */
  entitlementGpuSeconds: number;
}

/** Where a job runs: concrete GPU indexes on each node. */
export interface Placement {
  nodeId: string;
  gpuIndexes: number[];
}

/** The contract a job is submitted with (SPEC §2). */
export interface JobContract {
  gpus: number;
  /** Seconds of protection after each start, 0..cap. 0 = unallocated work. */
  minRuntime: number;
  /** The job is killed after this many seconds; null = unbounded. */
  maxRuntime: number | null;
  /** Orders jobs only within the same budget; higher goes first. */
  priority: number;
  /** It can restart from its own checkpoints: requeued after preemption (R6). */
  resumable: boolean;
  /** A non-resumable job asked to be requeued after preemption anyway (R6). */
  requeueOnPreempt: boolean;
  /** Requested grace between SIGTERM and SIGKILL, seconds (<= maxGracePeriod); null = default. */
  gracePeriod: number | null;
}

export interface JobBase extends JobContract {
  id: string;
  /** Display name, used in sentences when present. */
  name?: string;
  /** Leaf of the budget tree the job is charged to. */
  budgetId: string;
  userId: string;
  /** The user's display name (e.g. an email), used in sentences instead of userId when present. */
  userName?: string;
  /** Original submit time; kept across requeues (R6). */
  submittedAt: number;
}

export interface RunningJob extends JobBase {
  /**
   * Latest start. May be later than `now` while the job waits for the victims it preempted to
   * exit (a START with `afterExitOf`): it already holds its GPUs.
   */
  startedAt: number;
  placement: Placement[];
  /**
   * Whether this run is charged (allocated occupancy), as decided by the START op. When omitted the
   * core recomputes it: minRuntime > 0 and the budget has entitlement.
   */
  charged?: boolean;
  /** Set once the job was sent SIGTERM (preempted or drained): it is leaving. */
  stopping?: { byJobId: string | null; graceUntil: number } | null;
  /**
   * When the job was flagged as likely squatting (SPEC §4: its GPUs under 5% busy for 30 minutes;
   * see measures/flag-squatting.ts), null or absent when it is not. With the policy's
   * squattingUnprotectAfter set, a job flagged that long loses its protection.
   */
  squattingSince?: number | null;
  /** The last checkpoint the job reported (epoch seconds), null or absent when none is known. */
  lastCheckpointAt?: number | null;
}

export interface PendingJob extends JobBase {
  /** Set when the job was requeued after a preemption or loss (queue-wait measures). */
  requeuedAt?: number | null;
  /** Held by its owner or an operator: never started, reason HELD. */
  held?: boolean;
}

/** Everything one cycle needs about one cluster. */
export interface ClusterSnapshot {
  cluster: Cluster;
  nodes: Node[];
  /** The whole budget tree (every node), with this cluster's allocations and window aggregates. */
  tree: BudgetTreeNode[];
  running: RunningJob[];
  pending: PendingJob[];
  /**
   * Optional: the previous cycle's `CycleResult.reservations`. The debug lane is decided before the
   * cycle recomputes reservations, so these keep debug jobs that would not finish (or be
   * interruptible) before a reservation off its nodes (R5, R7). Ignored once the holder is gone.
   */
  reservations?: Reservation[];
}

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
  /** DEBUG_USER_CAP: debug GPUs the user holds and the cap. */
  userDebugGpus?: number;
  debugCap?: number;
  /** BUDGET_OVER_SHARE: the lowest ratio among the victims' budgets it would need, and the margin. */
  victimRatio?: number;
  margin?: number;
  /** INVALID_CONTRACT: what is wrong. */
  problem?: string;
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

// ---------------------------------------------------------------------------------------------
// Inputs of the window helpers (usage and entitlement, SPEC §2)
// ---------------------------------------------------------------------------------------------

/** A charged run segment or a usage ledger row: `gpus` GPUs charged to `budgetId` from start to end. */
export interface UsageSegment {
  budgetId: string;
  gpus: number;
  start: number;
  /** null = still running (counted up to `now`). */
  end: number | null;
}

/** Append-only allocation history: from `at`, `treeNodeId` has `allocationPpm` on this cluster. */
export interface AllocationChange {
  treeNodeId: string;
  at: number;
  allocationPpm: number;
}

/** Healthy GPU capacity of the cluster from `at` on (piecewise constant). */
export interface CapacityChange {
  at: number;
  healthyGpus: number;
}

/** Validation outcome shared by the API, the CLI and the trace importers (SPEC §6). */
export type ValidationResult = { ok: true } | { ok: false; errors: string[] };
