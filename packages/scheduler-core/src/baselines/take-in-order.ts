import type { JobState, NodeBoard } from "../cluster-state";
import { StartFits } from "../cycle/fits";
import type { ReasonExtras } from "../cycle/reason-drafts";
import type { CycleSession } from "../cycle/session";
import { plural } from "../format";
import { EntryColumns } from "../entry-columns";
import { compareEntries, isSorted, LANE_INDEX, type PendingEntry } from "../order-pending";
import { findFreePlacement } from "../place-jobs";
import { findPreemption } from "../plan-preemptions";
import { ClosedTail } from "./closed-tail";
import { FailedSearches, victimClass } from "./failed-searches";
import { QuietRuns } from "./quiet-runs";
import { heldCode, WAITING, WaitingNotes, type WaitingCode } from "./waiting-notes";

/** What a baseline decides; the rest of its cycle is the core's (see rule-set.ts). */
export interface BaselineRules {
  readonly name: "priority" | "fifo";
  /** The one global order of the pending jobs (a total order: ids last). */
  compare(a: PendingEntry, b: PendingEntry): number;
  /**
   * Per cycle: does a job of `budget`, lane `lane` (LANE_INDEX) and `gpus` run charged (allocated
   * occupancy, protected by the rule set)? Asked in order. A job that would run charged would also
   * with fewer GPUs (closed-tail.ts relies on it).
   */
  chargedIn(s: CycleSession): (budget: number, lane: number, gpus: number) => boolean;
  /** May the unallocated run `v` be preempted for `e`? null: the regime never preempts. */
  mayPreempt: ((v: JobState, e: PendingEntry, charged: boolean) => boolean) | null;
}

/**
 * Phase 6 of a baseline: the pending jobs in the rule set's order, each started on free GPUs (R1),
 * else by preempting the unallocated runs the rules allow (the core's victim search, reason
 * PRIORITY), else it waits. The first job that waits reserves nodes (the ones with the most free
 * GPUs): no other job starts there until it does, so large jobs do not starve; later jobs backfill
 * elsewhere. Reasons: NODE_CONSTRAINT (its node lists keep it waiting, as in the fair-share cycle),
 * RESERVED_FOR (it would fit on the reserved nodes), ORDER (it would have fit
 * the GPUs free when the cycle began), else CAPACITY.
 */
export function takeInOrder(s: CycleSession, rules: BaselineRules): void {
  const { board, reservations, policy, tree } = s;
  const fits = new StartFits(board);
  const chargedOf = rules.chargedIn(s);
  const notReserved = (node: number): boolean => reservations.reservedBy[node]! < 0;
  const constraints = reservations.constraints;
  // Facts that hold until the free GPUs move: no free placement from this size up, and per victim
  // class (non-preemptible, or a priority) the smallest size whose victim search failed.
  let noFreeVersion = -1;
  let noFreeFrom = Infinity;
  const failed = new FailedSearches();
  let reservedExtras: ReasonExtras | null = null; // one object for every RESERVED_FOR (reasons copy it)
  const reservedFor = (): ReasonExtras => {
    const r = reservations.list[0]!;
    return (reservedExtras ??= { earliestStart: null, reservedForJobId: r.jobId, reservedFrom: r.from });
  };
  // Admission's own array when in queue order (CycleSession.entries): copied, since the deferred
  // reasons read `list` after the cycle.
  const entries = s.entriesInQueueOrder ? s.entries.slice() : s.entries;
  const list = s.entriesInQueueOrder && rules.compare === compareEntries ? entries : inOrder(entries, rules.compare);
  // What the walk reads of a job that waits, as columns: admission's kept ones when `list` is its
  // entries (made on a baseline's first ask, then kept with them; fairshare never asks).
  const cols = list === entries && s.entriesInQueueOrder ? s.admission.columns() : EntryColumns.of(list);
  const waiting = new WaitingNotes(s, list, s.order.length, fits);
  const n = list.length;
  // Runs of jobs that wait together, and the closed tail (quiet-runs.ts, closed-tail.ts): off with
  // the other deferred reasons (WorkingMemory.deferReasons), so that the tests compare them with
  // the walk job by job. Objects, given the walk's facts as arguments, and read by no closure here:
  // what a closure here reads goes into this function's heap context, which outlives the cycle.
  // With the walk's facts in it the scavenger's time doubled; with `quiet` (and through it the
  // session) the 10 days of philly-overload took 3.6 s instead of 2.5 s, and 48 MB instead of 8 MB
  // stayed live after each full collection.
  const quiet = new QuietRuns(s, cols, n, fits, waiting, chargedOf, rules.mayPreempt !== null);
  const tail = s.deferReasons ? new ClosedTail(s, cols, n, rules, chargedOf) : null;
  for (let i = 0; i < n; i++) {
    const g = cols.gpus[i]!;
    const budget = cols.budget[i]!;
    const lane = cols.lane[i]!;
    const allocated = lane !== UNALLOCATED;
    s.order.push(cols.ids[i]!);
    const position = s.order.length;
    const ratio = tree.projectedRatio(budget);
    if (!fits.readyNodes(g)) {
      waiting.note(i, WAITING.CLUSTER_DRAINING, ratio, quiet.free().largest, null, allocated);
      continue;
    }
    const charged = chargedOf(budget, lane, g);
    // Node constraints (node-constraints.ts): only the nodes the job may use, and what fails for it
    // (fewer nodes) is not remembered for others. The runs that wait together stay exact: a
    // constrained job cannot start where a job of its size without constraints cannot.
    const mask = cols.constrained[i] ? constraints.maskOf(list[i]!) : null;
    const allow =
      mask !== null
        ? (node: number) => mask[node] === 1 && notReserved(node)
        : reservations.length === 0
          ? reservations.allowAll
          : notReserved;
    const slots = board.freeVersion === noFreeVersion && g >= noFreeFrom ? null : findFreePlacement(board, g, allow);
    if (slots) {
      s.start(runAs(list[i]!, charged), slots, "FREE_GPUS", position, ratio, `Started on free GPUs (${rules.name} baseline).`);
      continue;
    }
    if (mask !== null) {
      // Not remembered (see above).
    } else if (board.freeVersion !== noFreeVersion) [noFreeVersion, noFreeFrom] = [board.freeVersion, g];
    else noFreeFrom = Math.min(noFreeFrom, g);
    const may = rules.mayPreempt;
    const key = victimClass(charged, cols.priority[i]!);
    if (may && s.preemptionSearches < policy.maxPreemptionSearches && failed.maySearch(g, key, board)) {
      const e = list[i]!;
      s.preemptionSearches++;
      s.preemptionCtx.mayPreempt = (v) => may(v, e, charged);
      const choice = findPreemption(s.preemptionCtx, s.scratch, g, "RETRY", e.budget, allow);
      s.preemptionCtx.mayPreempt = undefined;
      if (choice) {
        for (const v of [...choice.victims].sort((x, y) => (x.job.id < y.job.id ? -1 : 1)))
          s.preempt(
            v,
            e.id,
            "PRIORITY",
            ratio,
            `Preempted for job ${e.id} (priority ${e.priority}${charged ? ", not preemptible" : ""}): this job ran preemptible at priority ${v.job.priority}.`,
          );
        failed.clear();
        const placed = choice.nodes.map((node) => ({ node, gpus: board.freeIndexes(node, Math.min(g, board.size)) }));
        s.start(
          runAs(e, charged),
          placed,
          "PREEMPTED_UNALLOCATED",
          position,
          ratio,
          `Started by preempting ${plural(choice.victims.length, "preemptible job")} (${rules.name} baseline).`,
        );
        continue;
      }
      if (mask === null) failed.fail(key, g);
    }
    let code: WaitingCode;
    let extras: ReasonExtras | null = null;
    // Its lists keep it waiting (as the fair-share cycle says it, reason-precedence.ts): no node it may
    // use takes work, or free GPUs it may not use would take it.
    const listsHold =
      mask !== null &&
      (!usableNode(board, mask, g) ||
        findFreePlacement(board, g, reservations.length === 0 ? reservations.allowAll : notReserved) !== null);
    if (reservations.length === 0) {
      code = listsHold ? WAITING.NODE_CONSTRAINT : fits.freeAtStart(g) ? WAITING.ORDER : WAITING.CAPACITY;
      const nodes = reserveNodes(board, g, mask);
      if (nodes) {
        const e = list[i]!;
        const nodeIds = nodes.map((n) => board.nodes[n]!.id);
        reservations.add({ jobId: e.id, gpus: g, nodeIds, from: s.now, holder: e }, nodes);
        s.plan.push({
          op: "RESERVE",
          jobId: e.id,
          nodeIds,
          from: s.now,
          sentence: `Reserved ${plural(nodes.length, "node")} (${nodes.map((n) => board.nodes[n]!.name).join(", ")}) for job ${e.id}, the first in ${rules.name} order that cannot start: no other job starts there until it does.`,
        });
      }
    } else {
      code = listsHold ? WAITING.NODE_CONSTRAINT : heldCode(fits, board.size, g, quiet.free());
      if (code === WAITING.RESERVED_FOR) extras = reservedFor();
    }
    waiting.note(i, code, ratio, quiet.free().largest, extras, allocated);
    // The jobs after it that wait with it (quiet-runs.ts).
    if (tail !== null && reservations.length > 0 && board.freeVersion === noFreeVersion)
      i = quiet.pass(i + 1, tail, noFreeVersion, noFreeFrom, failed, reservedFor()) - 1;
  }
  waiting.finish();
}

const UNALLOCATED = LANE_INDEX.UNALLOCATED;

/** What a job starts as: an uncharged one runs unallocated (a copy of its entry, made only when it starts). */
function runAs(e: PendingEntry, charged: boolean): PendingEntry {
  return charged || e.lane === "UNALLOCATED" ? e : { ...e, lane: "UNALLOCATED" };
}

/** Whether a node the job's mask allows takes work and can hold its share of `gpus`. */
function usableNode(board: NodeBoard, mask: Uint8Array, gpus: number): boolean {
  const perNode = Math.min(gpus, board.size);
  for (let n = 0; n < board.count; n++)
    if (mask[n] === 1 && board.schedulable[n] && board.nodes[n]!.gpuCount >= perNode) return true;
  return false;
}

/** The entries in the regime's order: the caller's array itself when it is in that order already (the simulator's is). */
function inOrder(
  entries: readonly PendingEntry[],
  compare: (a: PendingEntry, b: PendingEntry) => number,
): readonly PendingEntry[] {
  return isSorted(entries, compare) ? entries : entries.slice().sort(compare);
}

/**
 * The nodes held for the first job that waits: for a job up to a node, the schedulable node with the
 * most free GPUs (ties: node order); for a larger one, the gpus / size whole nodes with the most.
 */
function reserveNodes(board: NodeBoard, gpus: number, mask: Uint8Array | null): number[] | null {
  const cands: number[] = [];
  for (let n = 0; n < board.count; n++) {
    const count = board.nodes[n]!.gpuCount;
    if (mask !== null && mask[n] !== 1) continue;
    if (board.schedulable[n] && (gpus <= board.size ? count >= gpus : count === board.size)) cands.push(n);
  }
  const need = gpus <= board.size ? 1 : gpus % board.size === 0 ? gpus / board.size : Infinity;
  if (cands.length < need) return null;
  cands.sort((a, b) => board.free[b]! - board.free[a]! || a - b);
  return cands.slice(0, need).sort((a, b) => a - b);
}
