import type { Reservation } from "./cycle-result";
import type { PendingBacklog } from "./pending-backlog";
import type { NodeHealth, NodeState } from "./states-and-codes";

// The input of one cycle, one cluster (SPEC §2), part of the stable contract re-exported by types.ts:
// changes are additive only.

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
  /**
   * Planned maintenance (an operator's drain at a time, R8): from then the node drains. Before it, no
   * job starts there whose protection would run past it (planned-drains.ts). null/absent = none.
   */
  drainAt?: number | null;
  /** The plan's reason and who made it (their display name), for the drain's words. */
  drainReason?: string | null;
  drainPlannedBy?: string | null;
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
  /** The user's display name, used in sentences instead of userId (never their e-mail: sentences reach every reader). */
  userName?: string;
  /** Original submit time; kept across requeues (R6). */
  submittedAt: number;
  /** A task of a job array (`--array`): the array's id (the id of its first task). */
  arrayId?: string | null;
  /** The array's cap (`%N`): at most this many of its tasks run at once; null = no cap. */
  arrayMaxRunning?: number | null;
  /** `--nodelist`: names of the only nodes it may run on; null/absent/empty = any node. */
  nodes?: readonly string[] | null;
  /** `--exclude`: names of nodes it must never run on; null/absent/empty = none. */
  excludeNodes?: readonly string[] | null;
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
   * The last checkpoint the job reported (epoch seconds), null or absent when none is known. The work
   * since it is what a preemption would lose, which orders victims with the run's age (R6).
   */
  lastCheckpointAt?: number | null;
}

export interface PendingJob extends JobBase {
  /** Set when the job was requeued after a preemption or loss (queue-wait measures). */
  requeuedAt?: number | null;
  /** Held by its owner or an operator: never started, reason HELD. */
  held?: boolean;
  /** Who held it and when, for its HELD sentence; absent when not known (the sentence then names no one). */
  hold?: JobHold | null;
  /** `--after`: jobs it waits for, each with where that job stands (see cycle/job-rules.ts). */
  dependencies?: JobDependency[];
}

/**
 * Who held a job, as its HELD sentence names them: "owner" when its owner held it, else the holder's
 * role now ("other" for none of these, a manager since demoted say).
 */
export type HoldRole = "owner" | "operator" | "admin" | "manager" | "other";

/** Who held a waiting job (their display name) and when (seconds). */
export interface JobHold {
  byName: string;
  byRole: HoldRole;
  at: number;
}

/** What a dependency asks of the other job: "ok" it completes successfully, "any" it ends at all. */
export type DependencyCondition = "ok" | "any";
/** Where the other job stands: still to run or running ("WAITING", retries included), or how it ended. */
export type DependencyState = "WAITING" | "COMPLETED" | "FAILED" | "PREEMPTED" | "CANCELLED" | "KILLED" | "LOST";

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
  /**
   * Optional: the caller's backlog whose `items` is `pending` (pending-backlog.ts). A kept scheduler
   * (createScheduler) then reads what was added and removed since its last cycle instead of comparing
   * the whole array with last cycle's. Decisions are the same with it and without it.
   */
  backlog?: PendingBacklog;
}
