// States and codes of the core (SPEC §2, §5): SCREAMING_SNAKE string literals, no TS enums.
// Part of the stable contract re-exported by types.ts: changes are additive only.

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
  "DEBUG_RESERVE",
  "NODE_CONSTRAINT",
  "PLANNED_DRAIN",
  "RESERVED_FOR",
  "ORDER",
  "BUDGET_OVER_SHARE",
  "DEBUG_VICTIM_COST",
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

const PREEMPT_REASONS = new Set<string>(PREEMPT_REASON_CODES);
/** Whether stored text (a run segment's end detail) is a preemption's reason code. */
export const isPreemptReasonCode = (s: string | null | undefined): s is PreemptReasonCode => s != null && PREEMPT_REASONS.has(s);

export const NODE_STATE_REASON_CODES = ["UNHEALTHY_REPORT", "DRAINED", "HEARTBEAT_TIMEOUT", "PLANNED_DRAIN"] as const;
/**
 * Why the core moves a node: unhealthy -> DRAINING, empty DRAINING -> REPAIR (R8), silent -> DOWN (R9),
 * its planned maintenance is due -> DRAINING (R8, planned-drains.ts).
 */
export type NodeStateReasonCode = (typeof NODE_STATE_REASON_CODES)[number];

/** Scheduling class of a job in a cycle: R5 debug lane first, then allocated, then unallocated (R3). */
export const JOB_LANES = ["DEBUG", "ALLOCATED", "UNALLOCATED"] as const;
export type JobLane = (typeof JOB_LANES)[number];
