import type { NodeBoard } from "../cluster-state";
import { findFreePlacement, type Slots } from "../place-jobs";
import type { JobLane } from "../types";

/**
 * Speed bookkeeping of one cycle, kept out of the rules: facts learned from a failed search that
 * stay true until the board or the ratios move, so the next pending job skips the search. None of it
 * changes a decision; each entry says why it stays true.
 */
export class SearchMemo {
  // R1 placement is monotonic in size: when a job of g GPUs found no free placement on any node, a
  // job of g or more finds none either (one node with >= g free, or whole free nodes) until the free
  // GPUs move (board.freeVersion). Saves a probe per pending job once the cluster is full.
  private noFreeVersion = -1;
  private noFreeFrom = Infinity;
  /**
   * (lane, budget, backfill class) -> the most GPUs a failed search could have freed on one node (see
   * SearchScratch.room). Within a cycle victims only get used up and a budget's rank only drops as it
   * starts jobs, so a job of the same budget needing more would find nothing either (up to rank moves
   * of the victims' budgets).
   */
  private readonly failedSearch = new Map<number, number>();
  /** mayPreemptInterruptible per budget, until the next start or preemption moves the ratios. */
  private readonly mayPreempt = new Map<number, { version: number; result: boolean }>();

  constructor(
    private readonly board: NodeBoard,
    /** The allow-everything filter: only its failures say something about every node. */
    private readonly allowAll: (node: number) => boolean,
  ) {}

  /**
   * findFreePlacement (for a job of `budget`, -1 for none), skipped when a job as large already found
   * nothing on the same free GPUs. Whether a placement exists does not depend on the budget.
   */
  freePlacement(g: number, allow: (node: number) => boolean, budget = -1): Slots | null {
    const board = this.board;
    if (this.noFreeVersion === board.freeVersion && g >= this.noFreeFrom) return null;
    const slots = findFreePlacement(board, g, allow, budget);
    if (slots === null && allow === this.allowAll && g > 0 && (g <= board.size || g % board.size === 0)) {
      if (this.noFreeVersion !== board.freeVersion) {
        this.noFreeVersion = board.freeVersion;
        this.noFreeFrom = g;
      } else if (g < this.noFreeFrom) this.noFreeFrom = g;
    }
    return slots;
  }

  /**
   * The key of a preemption search: (budget, or one key for the whole debug lane) x victim tiers x
   * which of the first 20 reservations it may use (a bit mask).
   */
  searchKey(lane: JobLane, budget: number, treeSize: number, unallocatedOnly: boolean, reservationMask: number): number {
    return ((lane === "DEBUG" ? treeSize : budget) * 2 + (unallocatedOnly ? 1 : 0)) * 2 ** 20 + reservationMask;
  }

  /** The most GPUs a search of this key can still find (Infinity: not known to fail). */
  searchRoom(key: number): number {
    return this.failedSearch.get(key) ?? Infinity;
  }

  searchFailed(key: number, room: number): void {
    this.failedSearch.set(key, room);
  }

  /** The reservations were computed afresh: what failed against the old ones may not fail now. */
  forgetSearches(): void {
    this.failedSearch.clear();
  }

  mayPreemptKnown(budget: number, ratiosVersion: number): boolean | undefined {
    const m = this.mayPreempt.get(budget);
    return m && m.version === ratiosVersion ? m.result : undefined;
  }

  rememberMayPreempt(budget: number, ratiosVersion: number, result: boolean): void {
    this.mayPreempt.set(budget, { version: ratiosVersion, result });
  }
}
