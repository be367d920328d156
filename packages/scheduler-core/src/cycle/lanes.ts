import type { EntryColumns } from "../entry-columns";
import { nodesLeftProblem } from "../node-constraints";
import { LANE_INDEX, PendingQueues, type PendingEntry } from "../order-pending";
import type { JobLane, PendingReasonCode } from "../types";
import { BlockedMemo, type BlockedOutcome } from "./blocked-memo";
import { carryReservations } from "./carried-reservations";
import { deferClosedLane, unallocatedLaneClosed } from "./closed-lane";
import { consolidate, tryConsolidate } from "./consolidate";
import { debugReserveGpus } from "./debug-reserve";
import { StartFits } from "./fits";
import { reservationExtras, type ReasonExtras } from "./reason-drafts";
import { blockedReason, plannedDrainExtras } from "./reason-precedence";
import type { CycleSession } from "./session";
import { mayPreemptInterruptible, tryStart } from "./try-start";

const LANES: readonly JobLane[] = ["DEBUG", "ALLOCATED", "UNALLOCATED"];
const DEBUG = LANE_INDEX.DEBUG;
const ALLOCATED = LANE_INDEX.ALLOCATED;

/**
 * The three lanes in turn, each in fair-tree order (R2): debug (R5), allocated (R2-R4), unallocated
 * (R3). Every job is placed on free GPUs (R1, backfill of R7), else by preempting (R3/R4/R5), else
 * the first blocked jobs get a reservation (R7) and every blocked job a reason (R10). Before the
 * unallocated lane, GPUs freed later in the cycle go to the blocked allocated jobs first (R3), then
 * to the unallocated jobs R3 preempted, which move there instead of waiting in the queue (R12).
 * `shareBlocked` lets a blocked job's outcome serve the later jobs of its kind (blocked-memo.ts; off
 * only to check that it changes nothing).
 */
export function runLanes(s: CycleSession, shareBlocked = true): void {
  const { admission } = s;
  s.queues = new PendingQueues(s.tree, s.entries, admission.queuesFor(s.entries, s.tree.size), (q) => admission.columnsOf(q));
  const fits = new StartFits(s.board);
  const carried = carryReservations(s);
  for (const lane of LANES) {
    if (lane === "ALLOCATED" && carried.size > 0) {
      // The allocated lane computes this cycle's reservations afresh.
      s.reservations.clear();
      s.memo.forgetSearches();
    }
    if (lane === "UNALLOCATED") {
      retryBlockedAllocated(s, shareBlocked);
      consolidate(s);
    }
    const blocked = shareBlocked ? new BlockedMemo(s) : null;
    const deferWhenClosed = lane === "UNALLOCATED" && s.deferReasons;
    const allocated = lane === "ALLOCATED";
    if (allocated) s.settledFrom = s.blocked.count;
    for (;;) {
      if (deferWhenClosed && unallocatedLaneClosed(s)) {
        deferClosedLane(s, fits);
        break;
      }
      const e = s.queues!.next(lane);
      if (e === null) break;
      const jobs = s.board.jobsVersion;
      const reserved = s.reservations.nodesVersion;
      takeNext(s, fits, e, lane, blocked);
      const moved = s.board.jobsVersion !== jobs || s.reservations.nodesVersion !== reserved;
      if (allocated && moved) s.settledFrom = s.blocked.count;
      else if (!moved && blocked !== null && lane !== "DEBUG") takeSharedRun(s, fits, lane, blocked);
    }
  }
}

/**
 * R3: GPUs freed later in the cycle go to blocked allocated jobs, in order, before unallocated work.
 * A retry that fails serves the later jobs of its kind while nothing moved, as in the lanes
 * (blocked-memo.ts: a try reads the job only through its kind; the same run's jobs of its kind are
 * passed by at once, BlockedMemo.kindRunEnd), and the settled jobs are passed over (SettledJobs). Both are off
 * with shared outcomes (`shareBlocked`), so the test that turns them off checks them too.
 */
function retryBlockedAllocated(s: CycleSession, shareBlocked: boolean): void {
  const { board, reasons, policy, blocked } = s;
  const failed = shareBlocked ? new BlockedMemo(s) : null;
  const settled = shareBlocked ? new SettledJobs(s) : null;
  for (let r = 0; r < blocked.runs; r++) {
    const cols = blocked.cols[r]!;
    const first = blocked.firstAt[r]!;
    const runEnd = first + blocked.size[r]!;
    for (let o = 0; o < blocked.size[r]!; o++) {
      if (board.largestFree() === 0 && !board.couldFit(1, 0)) return;
      // The job's place in the whole list (CycleSession.settledFrom counts the same way).
      const j = blocked.firstJob[r]! + o;
      const passed = settled === null ? 0 : settled.passOver(j, cols, first + o);
      if (passed < 0) return;
      // Passed over: this job and the rest of its run (of its queue's jobs; the next run may go on with them).
      if (passed > 0) break;
      const i = blocked.firstDraft[r]! + o;
      // What the checks read of the job, from its queue's columns; the entry only where more is needed.
      const k = first + o;
      const debug = cols.lane[k] === DEBUG;
      if (debug) {
        const e = reasons.entryOf(i)!;
        if ((s.userDebug.get(e.job.userId) ?? 0) + e.gpus > policy.debugMaxGpusPerUser) continue;
      }
      // A task or job started since took the room its limit leaves.
      if (s.limits.mayBlock(cols.capped[k]!, cols.budget[k]!) && s.limits.blocked(reasons.entryOf(i)!) !== null) continue;
      // The run's jobs after this one that are of its kind fail as it did while nothing moves: passed by
      // at once (none of them is tried, so the board, the memo and SettledJobs stay as they are).
      if (failed !== null) {
        if ((debug ? failed.get(reasons.entryOf(i)!) : failed.getAt(cols, k)) !== undefined) {
          if (!debug) o = failed.kindRunEnd(cols, k, runEnd, s.limits) - first - 1;
          continue;
        }
        failed.mark();
      }
      const e = reasons.entryOf(i)!;
      if (tryStart(s, e, reasons.positionOf(i), reasons.ratioOf(i), true, true) === "STARTED") reasons.markStarted(i);
      else if (failed !== null) {
        failed.keep(e, NOT_RETRIED);
        if (!debug && failed.getAt(cols, k) !== undefined) o = failed.kindRunEnd(cols, k, runEnd, s.limits) - first - 1;
      }
    }
  }
}

/**
 * Speed bookkeeping of the retry, no rule: a job of the allocated lane tried there on the board and
 * reservations the retry still has (CycleSession.settledFrom), and for the same victims (unallocated
 * work only: its budget ranks ahead of no holder of interruptible work by the margin, R4), is passed
 * over. Its retry would end as its try did: no free placement, and its victim search made and
 * failed, or skipped for what still holds (no search left, no node that could fit it, a search of
 * its key failed for fewer GPUs: within a cycle these only tighten, search-memo.ts). On an
 * overloaded cluster that is most of the list: the jobs blocked after the lane's last start or
 * reservation.
 */
class SettledJobs {
  private readonly jobs: number;
  private readonly reserved: number;
  /** Per budget, whether its jobs may preempt more than unallocated work (R4), read once needed. */
  private mayPreemptMore: boolean[] | null = null;

  constructor(private readonly s: CycleSession) {
    this.jobs = s.board.jobsVersion;
    this.reserved = s.reservations.nodesVersion;
  }

  /**
   * For the j-th blocked job, entry k of `cols`: 0 to retry it, 1 to pass over it and the rest of its
   * run when it is settled (the run is of one queue: one lane and budget), -1 when no job from it on
   * needs a retry (none may preempt more than unallocated work, and all of them are of the allocated
   * lane: the debug lane's were blocked before it began).
   */
  passOver(j: number, cols: EntryColumns, k: number): number {
    const s = this.s;
    if (j < s.settledFrom || s.board.jobsVersion !== this.jobs || s.reservations.nodesVersion !== this.reserved) return 0;
    if (this.mayPreemptMore === null) {
      this.mayPreemptMore = Array.from({ length: s.tree.size }, (_, b) => mayPreemptInterruptible(s, b));
      if (!this.mayPreemptMore.includes(true)) return -1;
    }
    return cols.lane[k] !== ALLOCATED || this.mayPreemptMore[cols.budget[k]!] ? 0 : 1;
  }
}

/** What a failed retry keeps for its kind: only that it failed (its reason stays the lane's). */
const NOT_RETRIED: BlockedOutcome = { code: "CAPACITY", extras: null, estimate: false };

/**
 * Speed bookkeeping, no rule: the jobs the next picks would take after a job whose try moved
 * nothing, while each is told its kind's shared outcome (blocked-memo.ts), in one loop. With nothing
 * moved the fair-tree order takes the same budget's jobs in a row (PendingQueues.runAfterTaken), and
 * for such a job takeNext does no more than what is done here: its order, its record for the retry
 * (allocated lane) and its reason draft, with the budget's ratio and the largest free GPUs as they
 * stand. A job that needs more (not READY, a limit that may hold it, no shared outcome) ends the
 * loop, and takeNext takes it. Not the debug lane, whose kinds read the user, not only the columns.
 * On an overloaded cluster most of a lane's jobs are taken here (philly-overload: nine in ten of the
 * allocated lane's jobs come after its last start or reservation).
 *
 * The jobs after one of a kind that are of its kind too (BlockedMemo.sameKind) are told its outcome
 * as one run: one retry record and one reason row, not one a job.
 */
function takeSharedRun(s: CycleSession, fits: StartFits, lane: JobLane, blocked: BlockedMemo): void {
  const queues = s.queues!;
  const run = queues.runAfterTaken(lane);
  if (run === null) return;
  const { queue, from } = run;
  const cols = queues.takenColumns();
  const allocated = lane !== "UNALLOCATED";
  const { limits } = s;
  const ratio = s.tree.projectedRatio(queues.takenBudget);
  const largestFree = s.board.largestFree();
  let k = from;
  // The runs told outcomes of the same words, in a row, are told as one (sameWords): queues where
  // kinds alternate (1, 2, 1, 4 GPUs...) end a run every few jobs (philly-overload: 6 a run).
  let rowFrom = from;
  let told: BlockedOutcome | null = null;
  while (k < queue.length) {
    if (!fits.readyNodes(cols.gpus[k]!) || limits.mayBlock(cols.capped[k]!, cols.budget[k]!)) break;
    const shared = blocked.getAt(cols, k);
    if (shared === undefined) break;
    if (told !== null && !sameWords(told, shared)) {
      tellRun(s, queue, cols, rowFrom, k - rowFrom, allocated, told, ratio, largestFree);
      rowFrom = k;
    }
    told = shared;
    // Of its kind, its GPUs too: READY nodes for them as for it.
    k = blocked.kindRunEnd(cols, k, queue.length, s.limits);
  }
  if (told !== null) tellRun(s, queue, cols, rowFrom, k - rowFrom, allocated, told, ratio, largestFree);
  queues.skip(lane, k - from);
}

/**
 * Outcomes whose reasons read alike: a reason row keeps the code and extras of its drafts (the extras
 * by reference, as pushRun does), and whether each asks for an estimate; the rest is the row's ratio
 * and free GPUs, the same along takeSharedRun's loop. Nothing in the loop reads the order, the
 * reasons or the retry's list, so telling a run later, with the next ones, changes none of them.
 */
function sameWords(a: BlockedOutcome, b: BlockedOutcome): boolean {
  return a === b || (a.code === b.code && a.extras === b.extras && a.estimate === b.estimate);
}

/** Entries k.. of `queue`, `count` of them, ordered next and told `shared` (takeSharedRun). */
function tellRun(
  s: CycleSession,
  queue: readonly PendingEntry[],
  cols: EntryColumns,
  k: number,
  count: number,
  allocated: boolean,
  shared: BlockedOutcome,
  ratio: number,
  largestFree: number,
): void {
  const position = s.order.length + 1;
  s.order.pushEntries(queue, k, count);
  tellShared(s, queue, cols, k, count, allocated, shared, position, ratio, largestFree);
}

/**
 * What jobs told their kind's shared outcome get (takeNext, takeSharedRun): their record for the
 * retry (debug and allocated lanes) and their reason drafts, one run of `count` jobs from entry k of
 * `queue` (whose columns are `cols`) in positions from `position`.
 */
function tellShared(
  s: CycleSession,
  queue: readonly PendingEntry[],
  cols: EntryColumns,
  k: number,
  count: number,
  allocated: boolean,
  shared: BlockedOutcome,
  position: number,
  ratio: number,
  largestFree: number,
): void {
  if (allocated) s.blockedAllocated(cols, k, count);
  s.reasons.pushRun(queue, k, count, allocated, shared, position, ratio, largestFree);
}

/**
 * One job in fair-tree order: start it, or move it to the allocated lane (R5 cap), or say why it waits.
 * A job whose kind's outcome is shared (blocked-memo.ts) is read from its queue's columns only.
 */
function takeNext(s: CycleSession, fits: StartFits, e: PendingEntry, lane: JobLane, blocked: BlockedMemo | null): void {
  const { policy, board } = s;
  const queues = s.queues!;
  const cols = queues.takenColumns();
  const k = queues.takenAt;
  const g = cols.gpus[k]!;
  const allocated = lane !== "UNALLOCATED";
  s.order.push(cols.ids[k]!);
  const position = s.order.length;
  const ratio = s.tree.projectedRatio(queues.takenBudget);
  if (!fits.readyNodes(g)) {
    s.reasons.push(e, e.job, "CLUSTER_DRAINING", position, ratio, board.largestFree(), null, false);
    return;
  }
  // Its array's cap or its budget's per-user limit (job-rules.ts): no start, no reservation.
  const limited = s.limits.mayBlock(cols.capped[k]!, cols.budget[k]!) ? s.limits.blocked(e) : null;
  if (limited !== null) {
    s.reasons.push(e, e.job, limited.code, position, ratio, board.largestFree(), limited.details, false);
    return;
  }
  if (lane === "DEBUG") {
    const held = s.userDebug.get(e.job.userId) ?? 0;
    if (held + g > policy.debugMaxGpusPerUser) {
      // R5's cap limits the lane, not the job: over it, the job is ordered and placed as the
      // allocated job it is (R2, R3, R4), and says DEBUG_USER_CAP if it waits there.
      s.order.pop();
      s.setOverDebugCap(e, held);
      queues.add({ ...e, lane: "ALLOCATED" });
      return;
    }
  }
  if (blocked !== null) {
    // A debug job's kind includes its user, which its columns do not hold.
    const shared = lane === "DEBUG" ? blocked.get(e) : blocked.getAt(cols, k);
    if (shared !== undefined) {
      tellShared(s, queues.takenQueue(), cols, k, 1, allocated, shared, position, ratio, board.largestFree());
      return;
    }
    blocked.mark();
  }
  const job = e.job;
  const tried = tryStart(s, e, position, ratio, false, false);
  if (tried === "STARTED") return;
  // R12: unallocated work may preempt nothing, but may move other unallocated work out of its way.
  if (lane === "UNALLOCATED" && tryConsolidate(s, e, position, ratio)) return;

  // R7: the first blocked jobs get a reservation from the earliest time enough GPUs free up.
  let reservedFrom: number | null = null;
  if (lane !== "UNALLOCATED" && s.reservations.mayReserve()) {
    const made = s.reservations.reserve(e);
    const due = made !== null && made.reservation.from <= s.now && lane === "ALLOCATED" && g >= board.size;
    if (due && tryStart(s, e, position, ratio, false, false, true) === "STARTED") {
      // A job of whole nodes whose reservation is due now started by preempting what it counted on (R7).
      s.reservations.dropLast();
      return;
    }
    if (made) {
      reservedFrom = made.reservation.from;
      s.plan.push(made.op);
    }
  }

  // R10: why it waits.
  if (allocated) s.blockedAllocated(cols, k);
  const capHeld = s.isOverDebugCap(e) ? s.overDebugCap.get(e.id) : undefined;
  const code = blockedReason(s, fits, e, capHeld !== undefined, tried);
  // Extra details beyond the numbers every reason carries, in the order its details list them.
  let extras: ReasonExtras | null = null;
  let estimate = false;
  if (code === "DEBUG_USER_CAP") {
    extras = { userDebugGpus: capHeld, debugCap: policy.debugMaxGpusPerUser };
  } else if (code === "DEBUG_RESERVE") {
    extras = { debugReserveGpus: debugReserveGpus(s) };
  } else if (code === "DEBUG_VICTIM_COST") {
    extras = s.reasons.victimCostExtras(policy.debugVictimMaxCost);
  } else if (code === "NODE_CONSTRAINT") {
    // Its lists may leave it no node in service at all (one it named retired since): it never starts.
    const problem = nodesLeftProblem(job, { name: s.snapshot.cluster.name, nodes: board.nodes });
    if (problem !== null) extras = { problem };
    else if (reservedFrom !== null) extras = reservationExtras(job.id, reservedFrom);
  } else if (code === "PLANNED_DRAIN") {
    extras = plannedDrainExtras(s, e);
  } else if (code === "RESERVED_FOR") {
    const r = s.reservations.blocking(e);
    extras = reservationExtras(r.jobId, r.from);
  } else if (code !== "NO_ENTITLEMENT") {
    if (code === "BUDGET_OVER_SHARE")
      extras =
        reservedFrom === null
          ? s.reasons.marginExtras(policy.preemptionMargin)
          : { margin: policy.preemptionMargin, ...reservationExtras(job.id, reservedFrom) };
    else if (reservedFrom !== null) extras = reservationExtras(job.id, reservedFrom);
    estimate = reservedFrom === null && (code === "CONTRACTS" || (code === "CAPACITY" && lane !== "UNALLOCATED"));
  }
  if (blocked !== null && reservedFrom === null) blocked.keep(e, { code, extras, estimate });
  s.reasons.push(e, job, code as PendingReasonCode, position, ratio, board.largestFree(), extras, estimate);
}
