import type { EntryColumns } from "../entry-columns";
import type { CycleSession } from "../cycle/session";
import { compareEntries, LANE_INDEX } from "../order-pending";
import { CHARGED, type FailedSearches } from "./failed-searches";
import type { BaselineRules } from "./take-in-order";

/**
 * Speed bookkeeping, no rule: the rest of a baseline's walk once no job left in it can start.
 *
 * A baseline walks every pending job each cycle, and on an overloaded cluster most of the walk comes
 * after its last start (philly-overload, priority, 20 days: 80% of the jobs walked; half the cycles
 * start nothing). A job left starts only on a free placement or by a victim search (take-in-order.ts),
 * and once the reservation is made the walk changes nothing for a job that does neither. So when
 *   - a reservation is held (no job left tries to make one),
 *   - no free placement exists for the smallest job left (the walk's own fact, kept while the free
 *     GPUs stay as they are: none for larger jobs either), and
 *   - no job left may search for victims: the regime never preempts, the searches are spent, no node
 *     could fit the smallest job left even with its preemptible work gone (nor any larger one), or a
 *     search already failed at a size no job left is under, for the charged class (or no job left
 *     under the size that failed can run charged: no budget has room for its smallest job of
 *     allocated work left, when that job is under it) and for the one priority left (the order is
 *     by priority, so one priority is left once the walk reaches the last priority's jobs),
 * every job left waits, for a reason that depends on its size alone (heldCode in waiting-notes.ts),
 * and nothing the walk checks moves again. The rest is then one quiet run (quiet-runs.ts): ordered
 * from the columns' ids, its reasons written when the result's reasons are first read. Off with the
 * other deferred reasons (WorkingMemory.deferReasons), which the tests compare.
 */

/** One walk's check: can no job from a place on start? (See above.) */
export class ClosedTail {
  /**
   * Places (descending) and sizes (strictly descending), read backwards once from the first place
   * asked: where the smallest job from that place on drops. `smallerLeft` of them still lie at or
   * after the walk's place.
   */
  private smallerPlace: number[] | null = null;
  private readonly smallerGpus: number[] = [];
  private smallerLeft = 0;
  /**
   * Per budget, the smallest jobs that are not unallocated work, once read: places (descending) and
   * sizes (strictly descending) where the smallest size from that place on drops, read backwards;
   * `chargeable[b]` of them still lie at or after the walk's place.
   */
  private chargeablePlace: number[][] | null = null;
  private chargeableGpus: number[][] = [];
  private chargeable: number[] = [];
  /**
   * What the last check that said no read: it is asked again only when one of them moved, or once
   * the walk reaches `noUntil`, where it passes the smallest job of allocated work left of a budget
   * that could run charged, or reaches the last priority.
   */
  private asked = [NaN, NaN, NaN, NaN, NaN];
  private noUntil = Infinity;
  /** Where the last priority's jobs begin (-1: not read yet). */
  private lastPriority = -1;
  /**
   * After a no: the first place from which the answer may turn yes while the walk's facts stay as
   * they were (the smallest job left grows, `noUntil`, the last priority's jobs). A quiet run
   * (take-in-order.ts) asks again only there.
   */
  askAt = 0;

  constructor(
    private readonly s: CycleSession,
    private readonly cols: EntryColumns,
    private readonly n: number,
    private readonly rules: BaselineRules,
    private readonly chargedOf: (budget: number, lane: number, gpus: number) => boolean,
  ) {}

  /**
   * Can no job from `from` on start, given the walk's facts: no free placement from `noFreeFrom`
   * GPUs up while the free GPUs are at `noFreeVersion`, and the failed victim searches by class?
   */
  closes(from: number, noFreeVersion: number, noFreeFrom: number, failed: FailedSearches): boolean {
    const { s, n, cols } = this;
    const { board, reservations, tree, policy } = s;
    if (from >= n || reservations.length === 0 || board.freeVersion !== noFreeVersion) return this.no(from + 1);
    const minG = this.smallestFrom(from);
    if (noFreeFrom > minG) return this.no(this.nextSmallest());
    // The smallest job left only grows, which never turns a yes into a no; nor does the walk passing
    // a place, though it may turn a no into a yes at `noUntil` (see below).
    const a = this.asked;
    if (
      from < this.noUntil &&
      a[0] === noFreeVersion &&
      a[1] === noFreeFrom &&
      a[2] === s.preemptionSearches &&
      a[3] === tree.version &&
      a[4] === minG
    )
      return this.no(this.nextAsk(from));
    a[0] = noFreeVersion;
    a[1] = noFreeFrom;
    a[2] = s.preemptionSearches;
    a[3] = tree.version;
    a[4] = minG;
    if (this.rules.mayPreempt === null || s.preemptionSearches >= policy.maxPreemptionSearches || !board.couldFit(minG, 0))
      return true;
    // No job left searches: each victim class it could be in failed at a size no job left is under.
    this.noUntil = Infinity;
    const failedCharged = failed.failedAt(CHARGED);
    const chargedDone = failedCharged <= minG || !this.mayRunChargedUnder(from, failedCharged);
    if (this.rules.compare !== compareEntries) return this.no(this.nextAsk(from));
    const lastPriority = this.lastPriorityFrom(from);
    if (from < lastPriority) this.noUntil = Math.min(this.noUntil, lastPriority);
    if (chargedDone && from >= lastPriority && failed.failedAt(cols.priority[from]!) <= minG) return true;
    return this.no(this.nextAsk(from));
  }

  private no(askAt: number): false {
    this.askAt = askAt;
    return false;
  }

  /**
   * Where a no given at `from` may turn yes with the same facts: where the smallest job left grows,
   * or `noUntil`. Passing a place changes nothing else the check reads: mayRunChargedUnder's yes
   * sets `noUntil`, its no stays a no (the smallest job of a budget only grows), and the last
   * priority's start is in `noUntil` while the walk is before it.
   */
  private nextAsk(from: number): number {
    return Math.max(from + 1, Math.min(this.nextSmallest(), this.noUntil));
  }

  /** The place after the smallest job left (smallestFrom's last answer): from there the smallest grows. */
  private nextSmallest(): number {
    const k = this.smallerLeft;
    return k === 0 ? Infinity : this.smallerPlace![k - 1]! + 1;
  }

  /**
   * Where the jobs of the last priority begin (the order is by priority, so one priority is left
   * from there on), read once, back to `from` at most: the walk's later places are all at or after
   * it, so a start before it answers as `from` does.
   */
  private lastPriorityFrom(from: number): number {
    if (this.lastPriority < 0) {
      const { priority } = this.cols;
      let i = this.n - 1;
      while (i > from && priority[i - 1] === priority[this.n - 1]) i--;
      this.lastPriority = i;
    }
    return this.lastPriority;
  }

  /** The smallest job from `from` on (`from` never decreasing): the jobs after the first `from` asked are read once. */
  private smallestFrom(from: number): number {
    let places = this.smallerPlace;
    const sizes = this.smallerGpus;
    if (places === null) {
      places = this.smallerPlace = [];
      const gpus = this.cols.gpus;
      let m = Infinity;
      for (let i = this.n - 1; i >= from; i--) {
        const g = gpus[i]!;
        if (g >= m) continue;
        m = g;
        places.push(i);
        sizes.push(g);
      }
      this.smallerLeft = places.length;
    }
    let k = this.smallerLeft;
    while (k > 0 && places[k - 1]! < from) k--; // passed by the walk
    this.smallerLeft = k;
    return k === 0 ? Infinity : sizes[k - 1]!;
  }

  /**
   * Could a job from `from` on of fewer than `g` GPUs run charged now (and so search for victims
   * in the charged class)? Per budget only its smallest job left that is not unallocated work is
   * asked: a job runs charged with fewer GPUs whenever it would with more (BaselineRules.chargedIn).
   */
  private mayRunChargedUnder(from: number, g: number): boolean {
    let places = this.chargeablePlace;
    const sizes = this.chargeableGpus;
    const left = this.chargeable;
    if (places === null) {
      const budgets = this.s.tree.size;
      places = this.chargeablePlace = Array.from({ length: budgets }, () => []);
      for (let b = 0; b < budgets; b++) sizes.push([]);
      const smallest = new Array<number>(budgets).fill(Infinity);
      const { lane, budget, gpus } = this.cols;
      for (let i = this.n - 1; i >= 0; i--) {
        const b = budget[i]!;
        if (lane[i] === LANE_INDEX.UNALLOCATED || gpus[i]! >= smallest[b]!) continue;
        smallest[b] = gpus[i]!;
        places[b]!.push(i);
        sizes[b]!.push(gpus[i]!);
      }
      for (let b = 0; b < budgets; b++) left.push(places[b]!.length);
    }
    for (let b = 0; b < places.length; b++) {
      const at = places[b]!;
      let k = left[b]!;
      while (k > 0 && at[k - 1]! < from) k--; // passed by the walk: `from` never decreases
      left[b] = k;
      if (k === 0) continue;
      const m = sizes[b]![k - 1]!; // the smallest from `from` on
      if (m < g && this.chargedOf(b, LANE_INDEX.ALLOCATED, m)) {
        // It says no until the walk passes that job.
        this.noUntil = Math.min(this.noUntil, at[k - 1]! + 1);
        return true;
      }
    }
    return false;
  }
}
