import type { NodeBoard } from "../cluster-state";
import type { StartFits } from "../cycle/fits";
import type { Reservations } from "../cycle/reservations";
import type { EntryColumns } from "../entry-columns";
import type { CycleSession } from "../cycle/session";
import { compareEntries, LANE_INDEX } from "../order-pending";
import { hasFreePlacement } from "../place-jobs";
import type { BaselineRules } from "./take-in-order";
import { WAITING, type WaitingCode } from "./waiting-notes";

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
 *     can run charged: no budget with allocated work left has room for the smallest job) and for
 *     the one priority left (the order is by priority, so one priority is left when the first and
 *     last jobs left share it),
 * every job left waits, for a reason that depends on its size alone (CLUSTER_DRAINING, ORDER,
 * CAPACITY, RESERVED_FOR, as the walk would give it), and nothing the walk checks moves again. The
 * rest is then ordered from the columns' ids and its reasons written when the result's reasons are
 * first read (waiting-notes.ts), from the codes by size, the ratios and the largest free node noted
 * now. Off with the other deferred reasons (WorkingMemory.deferReasons), which the tests compare.
 */

/** The victim class of a job that runs charged (take-in-order.ts): below every priority. */
export const CHARGED = -Infinity;

/** One walk's check: can no job from a place on start? (See above.) */
export class ClosedTail {
  /** The smallest job of `gpus[from..n-1]` as last read, and the last place it holds. */
  private min = Infinity;
  private minLast = -1;
  /** Per budget the place of its last job that is not unallocated work (-1 for none), once read. */
  private lastCharged: number[] | null = null;
  /** What the last check that said no read: it is asked again only when one of them moved. */
  private asked = [NaN, NaN, NaN, NaN, NaN];

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
  closes(from: number, noFreeVersion: number, noFreeFrom: number, searchFailedAt: ReadonlyMap<number, number>): boolean {
    const { s, n, cols } = this;
    const { board, reservations, tree, policy } = s;
    if (from >= n || reservations.length === 0 || board.freeVersion !== noFreeVersion) return false;
    const minG = this.smallestFrom(from);
    if (noFreeFrom > minG) return false;
    // The smallest job left only grows, which never turns a yes into a no.
    const a = this.asked;
    if (a[0] === noFreeVersion && a[1] === noFreeFrom && a[2] === s.preemptionSearches && a[3] === tree.version && a[4] === minG)
      return false;
    a[0] = noFreeVersion;
    a[1] = noFreeFrom;
    a[2] = s.preemptionSearches;
    a[3] = tree.version;
    a[4] = minG;
    if (this.rules.mayPreempt === null || s.preemptionSearches >= policy.maxPreemptionSearches || !board.couldFit(minG, 0))
      return true;
    // No job left searches: each victim class it could be in failed at a size no job left is under.
    const p = cols.priority[from]!;
    const chargedDone = (searchFailedAt.get(CHARGED) ?? Infinity) <= minG || !this.mayRunCharged(from, minG);
    return (
      chargedDone &&
      this.rules.compare === compareEntries &&
      p === cols.priority[n - 1] &&
      (searchFailedAt.get(p) ?? Infinity) <= minG
    );
  }

  /**
   * The smallest job from `from` on (`from` never decreasing): read again only once `from` passed
   * the last job of the smallest size, each time a larger one.
   */
  private smallestFrom(from: number): number {
    if (from > this.minLast) {
      let m = Infinity;
      let last = -1;
      const gpus = this.cols.gpus;
      for (let i = from; i < this.n; i++) {
        const g = gpus[i]!;
        if (g <= m) {
          m = g;
          last = i;
        }
      }
      this.min = m;
      this.minLast = last;
    }
    return this.min;
  }

  /**
   * Could a job from `from` on, of `g` GPUs or more, run charged now? Only a budget with such a job
   * left can have one, and a job runs charged with fewer GPUs whenever it would with more
   * (BaselineRules.chargedIn).
   */
  private mayRunCharged(from: number, g: number): boolean {
    let last = this.lastCharged;
    if (last === null) {
      last = this.lastCharged = new Array<number>(this.s.tree.size).fill(-1);
      const { lane, budget } = this.cols;
      for (let i = this.n - 1; i >= 0; i--) {
        const b = budget[i]!;
        if (last[b] === -1 && lane[i] !== LANE_INDEX.UNALLOCATED) last[b] = i;
      }
    }
    for (let b = 0; b < last.length; b++) if (last[b]! >= from && this.chargedOf(b, LANE_INDEX.ALLOCATED, g)) return true;
    return false;
  }
}

/** What the jobs from `from` on wait for, by size, and how many of them are allocated or debug work. */
export function tailReasons(
  cols: EntryColumns,
  from: number,
  n: number,
  board: NodeBoard,
  fits: StartFits,
  reservations: Reservations,
  largestFree: number,
): { codeOf: Map<number, WaitingCode>; allocated: number } {
  const codeOf = new Map<number, WaitingCode>();
  let allocated = 0;
  for (let i = from; i < n; i++) {
    if (cols.lane[i] !== LANE_INDEX.UNALLOCATED) allocated++;
    const g = cols.gpus[i]!;
    if (codeOf.has(g)) continue;
    // As the walk says it with a reservation held (take-in-order.ts).
    let code: WaitingCode;
    if (!fits.readyNodes(g)) code = WAITING.CLUSTER_DRAINING;
    else if (g > 0 && g <= board.size ? largestFree >= g : hasFreePlacement(board, g, reservations.allowAll))
      code = WAITING.RESERVED_FOR;
    else code = fits.freeAtStart(g) ? WAITING.ORDER : WAITING.CAPACITY;
    codeOf.set(g, code);
  }
  return { codeOf, allocated };
}
