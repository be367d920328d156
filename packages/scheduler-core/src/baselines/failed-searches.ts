import type { NodeBoard } from "../cluster-state";

/** The victim class of a job that runs charged (take-in-order.ts): below every priority. */
export const CHARGED = -Infinity;

/** A job's victim class: CHARGED when it would run charged, else its priority. */
export function victimClass(charged: boolean, priority: number): number {
  return charged ? CHARGED : priority;
}

/**
 * A baseline walk's failed victim searches (take-in-order.ts): per victim class, the smallest size
 * whose search failed while the free GPUs stayed as they were. Within that, a search only fails
 * again for as many GPUs or more, so a job of the class searches only under that size. The walk,
 * its quiet runs and its closed tail all read it here.
 */
export class FailedSearches {
  private readonly at = new Map<number, number>();
  // The order groups jobs by priority, so the class of the last lookup is nearly always the next one's.
  private lastKey = NaN;
  private lastAt = Infinity;

  /** The smallest size whose search failed for class `key` (Infinity: none). */
  failedAt(key: number): number {
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastAt = this.at.get(key) ?? Infinity;
    }
    return this.lastAt;
  }

  /**
   * May a job of `g` GPUs and class `key` search (the count of searches left aside)? Not at or above
   * its class's failed size, and only if a node could fit it with the preemptible work gone.
   */
  maySearch(g: number, key: number, board: NodeBoard): boolean {
    return g < this.failedAt(key) && board.couldFit(g, 0);
  }

  fail(key: number, g: number): void {
    this.at.set(key, g);
    this.lastKey = key;
    this.lastAt = g;
  }

  /** A victim may leave GPUs beyond what its job takes: every class may search again. */
  clear(): void {
    this.at.clear();
    this.lastKey = NaN;
  }
}
