// Plain labels for the scheduler's reason codes: pages and the CLI show these; the code itself stays in
// JSON and in a tooltip (people read "waiting for protected jobs", tools read CONTRACTS). No zod here, so
// browser pages import it from "@tranche/contracts/reasons".

const PENDING: Record<string, string> = {
  HELD: "held",
  INVALID_CONTRACT: "cannot run on this cluster",
  DEPENDENCY_NEVER_SATISFIED: "never starts - a job it needs did not succeed",
  DEPENDENCY: "waiting for another job",
  CLUSTER_DRAINING: "nodes draining or down",
  ARRAY_LIMIT: "array's running limit reached",
  USER_LIMIT: "per-user GPU limit reached",
  DEBUG_USER_CAP: "debug GPU cap reached",
  NO_ENTITLEMENT: "budget has no share here",
  RESERVED_FOR: "nodes reserved for another job",
  DEBUG_RESERVE: "free GPUs kept for debug jobs",
  NODE_CONSTRAINT: "the nodes it may use are busy or not ready",
  PLANNED_DRAIN: "the nodes with room go into maintenance first",
  ORDER: "waiting its turn",
  BUDGET_OVER_SHARE: "budget not far enough behind to preempt",
  DEBUG_VICTIM_COST: "only long runs could make room",
  CONTRACTS: "waiting for protected jobs",
  CAPACITY: "not enough free GPUs",
};

const STARTED: Record<string, string> = {
  FREE_GPUS: "on free GPUs",
  BACKFILL: "backfilled before a reservation",
  RESERVATION: "on the nodes reserved for it",
  PREEMPTED_UNALLOCATED: "by preempting unallocated work",
  PREEMPTED_INTERRUPTIBLE: "by preempting interruptible jobs",
  DEBUG_LANE: "in the debug lane",
  CONSOLIDATION: "moved here from other GPUs",
};

const PREEMPTED: Record<string, string> = {
  UNALLOCATED_FOR_ALLOCATED: "for allocated work",
  FAIR_SHARE: "for a budget further below its share",
  DEBUG_LANE: "for a debug-lane job",
  DRAIN: "its node is draining",
  PRIORITY: "for a job that outranks it by priority",
  CONSOLIDATION: "moved to free GPUs elsewhere",
};

const OTHER: Record<string, string> = {
  UNHEALTHY_REPORT: "node reported unhealthy",
  DRAINED: "drained",
  HEARTBEAT_TIMEOUT: "no heartbeat",
  MAX_RUNTIME: "reached its maximum runtime",
  FINISH: "finished",
  FAIL: "failed",
  PREEMPT: "preempted",
  KILL: "killed",
  LOST: "lost with its node",
  CANCEL: "cancelled",
  // A moved job's old copy ended (event MOVED); other kinds name the move as STARTED or PREEMPTED do.
  CONSOLIDATION: "moved to other GPUs",
};

/**
 * The plain label of a reason code. `kind` is the job event's kind when the code comes from one
 * (STARTED and PREEMPTED share DEBUG_LANE); `details` names the job a reservation is for.
 */
export function reasonLabel(code: string, opts: { kind?: string; details?: unknown } = {}): string {
  const d = (opts.details ?? {}) as { reservedForJobId?: unknown; dependencies?: unknown };
  if (code === "RESERVED_FOR" && d.reservedForJobId != null) return `nodes reserved for #${String(d.reservedForJobId)}`;
  if (code === "DEPENDENCY" && Array.isArray(d.dependencies) && d.dependencies.length > 0) {
    const first = d.dependencies[0] as { jobId?: unknown };
    return `waiting for #${String(first.jobId)}${d.dependencies.length > 1 ? ` and ${d.dependencies.length - 1} more` : ""}`;
  }
  const label =
    opts.kind === "STARTED"
      ? STARTED[code]
      : opts.kind === "PREEMPTED"
        ? PREEMPTED[code]
        : (PENDING[code] ?? OTHER[code] ?? STARTED[code] ?? PREEMPTED[code]);
  return label ?? code.toLowerCase().replace(/_/g, " ");
}
