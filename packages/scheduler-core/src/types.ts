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
 * This file (with cycle-result.ts, the output side) is the stable contract shared with the worker,
 * the simulator and the web what-if view: changes are additive only.
 */
export type * from "./cycle-result";
import type { Reservation } from "./cycle-result";

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
  "DEPENDENCY_NEVER_SATISFIED",
  "DEPENDENCY",
  "CLUSTER_DRAINING",
  "ARRAY_LIMIT",
  "USER_LIMIT",
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
 * `DEPENDENCY`, `DEPENDENCY_NEVER_SATISFIED` (`--after`), `ARRAY_LIMIT` (`--array ...%N`) and
 * `USER_LIMIT` (a budget's per-user GPU limit) are additions too: see cycle/job-rules.ts.
 */
export type PendingReasonCode = (typeof PENDING_REASON_CODES)[number];

export const START_REASON_CODES = [
  "FREE_GPUS",
  "BACKFILL",
  "RESERVATION",
  "PREEMPTED_UNALLOCATED",
  "PREEMPTED_INTERRUPTIBLE",
  "DEBUG_LANE",
  "CONSOLIDATION",
] as const;
/**
 * Why a job starts: on free GPUs, as backfill on reserved nodes (R7), on the nodes reserved for it,
 * or after preempting unallocated work (R3), interruptible work (R4) or as a debug-lane job (R5);
 * CONSOLIDATION: an unallocated job moved to other free GPUs restarts there (R12).
 */
export type StartReasonCode = (typeof START_REASON_CODES)[number];

export const PREEMPT_REASON_CODES = [
  "UNALLOCATED_FOR_ALLOCATED",
  "FAIR_SHARE",
  "DEBUG_LANE",
  "DRAIN",
  "PRIORITY",
  "CONSOLIDATION",
] as const;
/**
 * Why a running job is preempted: R3 (unallocated work makes room for allocated work), R4 (an
 * interruptible job makes room for a budget that ranks ahead by more than the margin), R5 (a debug
 * job), R8 (its node is draining), R12 (CONSOLIDATION: an unallocated job is moved: it restarts at once on
 * other free GPUs, see StartOp.afterExitOf); PRIORITY only in the `priority` baseline (a job that outranks it).
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
   * R12: an unallocated job is moved (stopped and restarted on other free GPUs) at most once per this
   * many seconds since its latest start (default 30 min).
   */
  consolidationMinAge: number;
  /**
   * R5: share of the healthy GPUs that work outside the debug lane leaves free, so debug-lane jobs
   * start at once instead of waiting for a victim's grace. Rounded down to whole GPUs (0 on small
   * clusters). Default 0 (off): on philly-overload 1% did not shorten the debug wait (see
   * docs/scheduling-model.md, Changes).
   */
  debugReserve: number;
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
  /**
   * A budget's per-user GPU limit set by its managers: GPUs one user's jobs charged to this budget may
   * hold on this cluster at once (running, leaving, or started this cycle). null/undefined = none.
   */
  maxGpusPerUser?: number | null;
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
  /** A task of a job array (`--array`): the array's id (the id of its first task). */
  arrayId?: string | null;
  /** The array's cap (`%N`): at most this many of its tasks run at once; null = no cap. */
  arrayMaxRunning?: number | null;
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
  /**
   * The last checkpoint the job reported (epoch seconds), null or absent when none is known. Victims
   * that checkpointed most recently are preempted first (R6).
   */
  lastCheckpointAt?: number | null;
}

export interface PendingJob extends JobBase {
  /** Set when the job was requeued after a preemption or loss (queue-wait measures). */
  requeuedAt?: number | null;
  /** Held by its owner or an operator: never started, reason HELD. */
  held?: boolean;
  /** `--after`: jobs it waits for, each with where that job stands (see cycle/job-rules.ts). */
  dependencies?: JobDependency[];
}

/** What a dependency asks of the other job: "ok" it completes successfully, "any" it ends at all. */
export type DependencyCondition = "ok" | "any";
/** Where the other job stands: still to run or running ("WAITING", retries included), or how it ended. */
export type DependencyState = "WAITING" | "COMPLETED" | "FAILED" | "CANCELLED" | "KILLED" | "LOST";

export interface JobDependency {
  jobId: string;
  condition: DependencyCondition;
  state: DependencyState;
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
