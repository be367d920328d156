import { compareById } from "../budget-tree";
import { gracePeriodFor } from "../contract";
import { crossesPlannedDrain, drainSpan } from "../planned-drains";
import { formatPercent, formatWhen, plural, shareUsedText } from "../format";
import type { PendingEntry } from "../order-pending";
import type { Slots } from "../place-jobs";
import { findPreemption } from "../plan-preemptions";
import { holderReach } from "../plan-reservations";
import type { JobState } from "../cluster-state";
import type { PreemptOp, PreemptReasonCode } from "../types";
import { noteMoveCandidates } from "./consolidate";
import { shortsDebugReserve } from "./debug-reserve";
import type { CycleSession } from "./session";

/**
 * R4 shortcut: may a regular job of `budget` preempt interruptible work of any budget at all (ranks
 * ahead of some holder of it by the margin)? Memoised until the ratios move.
 */
export function mayPreemptInterruptible(s: CycleSession, budget: number): boolean {
  const known = s.memo.mayPreemptKnown(budget, s.ratiosVersion);
  if (known !== undefined) return known;
  const { tree, scratch } = s;
  const ctx = s.preemptionCtx;
  scratch.begin();
  let result = false;
  for (let b = 0; b < tree.size && !result; b++) {
    if (s.interruptibleByBudget[b]! > 0 && b !== budget && scratch.eligible(ctx, budget, b)) result = true;
  }
  s.memo.rememberMayPreempt(budget, s.ratiosVersion, result);
  return result;
}

/**
 * How a try ended. A job that did not start says what the debug reserve (R5) had to do with it, for
 * its reason (reason-precedence.ts), so the reserve is not asked again: RESERVE_PLACED, it had a free
 * placement and the reserve kept it off; RESERVE_COUNT, fewer free GPUs would be left than the reserve
 * wherever it went (no placement was searched); NOT_STARTED, the reserve did not stop it.
 */
export type TryOutcome = "STARTED" | "RESERVE_PLACED" | "RESERVE_COUNT" | "NOT_STARTED";

/**
 * Tries to start a job now: on free GPUs (R1, reservations honoured: R7 backfill), else by
 * preempting (R3 unallocated work; R4 interruptible work of budgets ranked behind by the margin; R5
 * any interruptible work for the debug lane) unless `unallocatedVictimsOnly`.
 */
export function tryStart(
  s: CycleSession,
  e: PendingEntry,
  position: number,
  ratio: number,
  unallocatedVictimsOnly: boolean,
  retry: boolean,
  /** The job's reservation is due now (R7): it may also preempt budgets it ranks ahead of by the margin. */
  holder = false,
): TryOutcome {
  const { board, tree, policy, now, reservations, memo } = s;
  const job = e.job;
  const g = job.gpus;
  const lane = e.lane;
  const allow = reservations.allowFor(e);
  // The debug reserve (R5) yields to a due reservation's holder of several nodes (R7): else a job of
  // more GPUs than the cluster less its reserve could never start. Not to a one-node holder: one is
  // due whenever a node is free, and they would take the reserve a node a cycle.
  const keepReserve = !(holder && g > board.size);
  const countShort = keepReserve && shortsDebugReserve(s, lane, g, null);
  const found = countShort ? null : memo.freePlacement(g, allow, e.budget);
  const placedShort = found !== null && keepReserve && shortsDebugReserve(s, lane, g, found);
  const slots =
    placedShort ||
    (found !== null &&
      crossesPlan(
        s,
        e,
        found.map((sl) => sl.node),
        [],
      ))
      ? null
      : found;
  if (slots) {
    const rIdx = slots.find((sl) => reservations.reservedBy[sl.node]! >= 0);
    const r = rIdx ? reservations.list[reservations.reservedBy[rIdx.node]!]! : null;
    // Its own reservation's nodes: the start the reservation was for, not a backfill before it.
    const own = r !== null && r.holder.job.id === job.id;
    s.start(
      e,
      slots,
      own ? "RESERVATION" : r ? "BACKFILL" : "FREE_GPUS",
      position,
      ratio,
      own
        ? "Started on the nodes reserved for it."
        : r
          ? `Backfilled on nodes reserved for job ${r.holder.job.id}, which can start there ${formatWhen(r.from, now)}: this job will have finished or become interruptible by then.`
          : retry
            ? "Started on GPUs freed later in this cycle."
            : "Started on free GPUs.",
    );
    return "STARTED";
  }
  const notStarted: TryOutcome = countShort ? "RESERVE_COUNT" : placedShort ? "RESERVE_PLACED" : "NOT_STARTED";
  if (lane === "UNALLOCATED" || s.preemptionSearches >= policy.maxPreemptionSearches) return notStarted;
  // Unallocated victims only: the retry pass (R3), or a regular job whose budget ranks ahead of no
  // holder of interruptible work by the margin (R4).
  const unallocatedOnly = unallocatedVictimsOnly || (lane === "ALLOCATED" && !holder && !mayPreemptInterruptible(s, e.budget));
  if (!(board.couldFit(g, 0) || (!unallocatedOnly && board.couldFit(g, 1)))) return notStarted;
  const key = memo.searchKey(lane, e.budget, tree.size, unallocatedOnly, reservations.backfillMask(e));
  const room = holder ? Infinity : memo.searchRoom(key);
  if (g > room) return notStarted;
  s.preemptionSearches++;
  s.preemptionCtx.holder = holder ? holderReach(g, board.size) : "none";
  const choice = findPreemption(s.preemptionCtx, s.scratch, g, unallocatedOnly ? "RETRY" : lane, e.budget, allow);
  s.preemptionCtx.holder = "none";
  if (choice && crossesPlan(s, e, choice.nodes, choice.victims)) return notStarted; // its own, like a constrained job's
  if (!choice) {
    // A job with a node constraint searched fewer nodes: its failure says nothing of its key's other jobs.
    if (!holder && !e.constrained) memo.searchFailed(key, Math.min(room, g - 1, s.scratch.room));
    return notStarted;
  }
  const margin = policy.preemptionMargin;
  const shareUsed = (r: number) => shareUsedText(r, policy);
  const victimsUnallocated = choice.tier === 0;
  const victimOps: { v: JobState; op: PreemptOp }[] = [];
  for (const v of [...choice.victims].sort((x, y) => compareById(x.job, y.job))) {
    const vRatio = v.budget >= 0 ? tree.projectedRatio(v.budget) : Infinity;
    const code: PreemptReasonCode = !v.charged ? "UNALLOCATED_FOR_ALLOCATED" : lane === "DEBUG" ? "DEBUG_LANE" : "FAIR_SHARE";
    const why =
      code === "UNALLOCATED_FOR_ALLOCATED"
        ? `Preempted: unallocated work makes room for allocated job ${job.id} (budget ${tree.paths[e.budget]}, which ${shareUsed(ratio)}).`
        : code === "DEBUG_LANE"
          ? `Preempted for debug-lane job ${job.id}: this job was interruptible and budget ${s.budgetPath(v.budget, v.job.budgetId)}, which ${shareUsed(vRatio)}, was among the most over-served.`
          : tree.mayTakeShare(e.budget, v.budget, v.job.gpus, margin)
            ? `Preempted for job ${job.id}: budget ${tree.paths[e.budget]} holds less than its owed share of the cluster and budget ${s.budgetPath(v.budget, v.job.budgetId)} keeps at least its own without this job, which was interruptible.`
            : `Preempted for job ${job.id}, whose reservation was due: budget ${tree.paths[e.budget]} (which ${shareUsed(ratio)}) ranks ahead of budget ${s.budgetPath(v.budget, v.job.budgetId)} (which ${shareUsed(vRatio)}) by more than ${formatPercent(margin)}, and this job was interruptible.`;
    const op = s.preempt(v, job.id, code, ratio, why);
    if (code === "UNALLOCATED_FOR_ALLOCATED") victimOps.push({ v, op });
  }
  const nodeSize = board.size;
  const placed: Slots = choice.nodes.map((node) => ({ node, gpus: board.freeIndexes(node, g <= nodeSize ? g : nodeSize) }));
  noteMoveCandidates(s, victimOps, placed);
  const n = choice.victims.length;
  s.start(
    e,
    placed,
    lane === "DEBUG" && !victimsUnallocated
      ? "DEBUG_LANE"
      : victimsUnallocated
        ? "PREEMPTED_UNALLOCATED"
        : "PREEMPTED_INTERRUPTIBLE",
    position,
    ratio,
    victimsUnallocated
      ? `Started by preempting ${plural(n, "unallocated job")}.`
      : lane === "DEBUG"
        ? `Debug-lane job started by preempting ${plural(n, "job")}.`
        : holder
          ? `Started on its reservation by preempting ${plural(n, "job")}: interruptible work of budgets above their owed share or ranked behind this one by more than ${formatPercent(margin)}.`
          : `Started by preempting ${plural(n, "job")}: interruptible work of budgets above their owed share (this budget is below its own).`,
  );
  return "STARTED";
}

/**
 * R8's plans, counted from the latest the start may launch (it waits for the leaving jobs on those
 * nodes and for these victims' grace): would the job's span cross a chosen node's planned drain? The
 * mask (node-constraints.ts) ruled out the nodes a start now would cross; a start that waits may
 * cross one more. Such a start is not made this cycle (nothing was preempted for it yet).
 */
function crossesPlan(s: CycleSession, e: PendingEntry, nodes: readonly number[], victims: readonly JobState[]): boolean {
  if (s.reservations.constraints.earliestPlan === Infinity) return false;
  const span = drainSpan(e.lane, e.job);
  if (span <= 0) return false;
  const { board, policy } = s;
  let start = board.latestExitOn(nodes);
  for (const v of victims) start = Math.max(start, s.now + gracePeriodFor(v.job, v.charged, policy));
  return nodes.some((n) => crossesPlannedDrain(board.nodes[n]!, start, span));
}
