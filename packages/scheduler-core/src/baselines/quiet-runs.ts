import { freeNow, type FreeNow, type StartFits } from "../cycle/fits";
import type { ReasonExtras } from "../cycle/reason-drafts";
import type { CycleSession } from "../cycle/session";
import type { EntryColumns } from "../entry-columns";
import { LANE_INDEX } from "../order-pending";
import type { ClosedTail } from "./closed-tail";
import { victimClass, type FailedSearches } from "./failed-searches";
import type { WaitingNotes } from "./waiting-notes";

/**
 * Speed bookkeeping, no rule: the jobs of a baseline's walk that wait together.
 *
 * Once the walk's reservation is held (take-in-order.ts), a job does one of three things: it starts
 * on a free placement, it searches for victims, or it waits, for a reason its size gives (heldCode).
 * While the free GPUs stay as they are, a job has no free placement from the walk's `noFreeFrom` up,
 * and it searches only if its victim class has not failed at its size or below, the searches are not
 * spent, and a node could fit it with the preemptible work gone. A job that does neither changes
 * nothing the walk reads, so the jobs up to the next one that may act are read from their columns
 * alone and noted as one run (WaitingNotes.noteRun): no order push, ratio or code each. On
 * philly-overload under priority (10 days) 99% of the jobs the walk reached were passed so.
 *
 * The closed tail (closed-tail.ts) is the run that reaches the end of the walk: it is asked where
 * a run starts, and again only where its answer may change (ClosedTail.askAt).
 *
 * An object, like ClosedTail, not closures in the walk: a closure there that reads the walk's
 * facts puts them in the walk's heap context, and the scavenger's time doubled.
 */
export class QuietRuns {
  /** The free GPUs now, read again only when they move (every job that waits records them). */
  private seen: FreeNow = { largest: 0, whole: 0 };
  private seenVersion = -1;
  /** Each budget's ratio, taken for a run when the tree moved since the last one. */
  private ratios: number[] = [];
  private ratiosVersion = -1;
  /** Jobs not of the unallocated lane among the walk's first `countedTo` (the run that reaches the end has the rest). */
  private counted = 0;
  private countedTo = 0;

  constructor(
    private readonly s: CycleSession,
    private readonly cols: EntryColumns,
    /** The walk's length (the columns may hold more). */
    private readonly n: number,
    private readonly fits: StartFits,
    private readonly waiting: WaitingNotes,
    private readonly chargedOf: (budget: number, lane: number, gpus: number) => boolean,
    private readonly mayPreempt: boolean,
  ) {}

  free(): FreeNow {
    const board = this.s.board;
    if (board.freeVersion !== this.seenVersion) {
      this.seenVersion = board.freeVersion;
      this.seen = freeNow(board);
    }
    return this.seen;
  }

  /**
   * Passes the jobs from `from` on that wait together, given the walk's facts (no free placement
   * from `noFreeFrom` GPUs up, the smallest failed size per victim class), closing the tail when
   * `tail` says no job left can start. Returns where the walk goes on: the next job that may act,
   * or the end. Call it only with the reservation held and the free GPUs at the walk's facts.
   */
  pass(
    from: number,
    tail: ClosedTail,
    noFreeVersion: number,
    noFreeFrom: number,
    failed: FailedSearches,
    reserved: ReasonExtras,
  ): number {
    const { s, cols, fits, n } = this;
    const { gpus, budget, lane, priority } = cols;
    for (let j = this.countedTo; j < from; j++) if (lane[j] !== LANE_INDEX.UNALLOCATED) this.counted++;
    this.countedTo = from;
    while (from < n) {
      if (tail.closes(from, noFreeVersion, noFreeFrom, failed)) {
        this.note(from, n, reserved);
        s.closedTailJobs = n - from;
        return n;
      }
      const searching = this.mayPreempt && s.preemptionSearches < s.policy.maxPreemptionSearches;
      const limit = Math.min(n, tail.askAt);
      let to = from;
      for (; to < limit; to++) {
        const g = gpus[to]!;
        let acts = g < noFreeFrom;
        if (!acts && searching) {
          // As the walk asks it: may this job search for victims?
          const key = victimClass(this.chargedOf(budget[to]!, lane[to]!, g), priority[to]!);
          acts = failed.maySearch(g, key, s.board);
        }
        if (acts && fits.readyNodes(g)) break; // else it waits, draining, and does nothing else
      }
      if (to > from) this.note(from, to, reserved);
      if (to < limit) return to;
      from = to;
    }
    return n;
  }

  /** Jobs `from..to` wait together. */
  private note(from: number, to: number, reserved: ReasonExtras): void {
    const { s, cols } = this;
    const { tree } = s;
    if (this.ratiosVersion !== tree.version) {
      this.ratiosVersion = tree.version;
      this.ratios = Array.from({ length: tree.size }, (_, b) => tree.projectedRatio(b));
    }
    let allocated = 0;
    if (to === cols.length) allocated = cols.notUnallocated - this.counted;
    else for (let j = from; j < to; j++) if (cols.lane[j] !== LANE_INDEX.UNALLOCATED) allocated++;
    this.counted += allocated;
    this.countedTo = to;
    this.waiting.noteRun({ from, to, size: s.board.size, free: this.free(), ratios: this.ratios }, reserved, allocated);
    s.order.pushIds(cols.ids, from, to);
    s.quietRunJobs += to - from;
  }
}
