import { EntryColumns } from "./entry-columns";
import { compareEntries, LANE_INDEX, queueLowerBound, queuesOf, type PendingEntry } from "./order-pending";

/**
 * The fair-tree queues ([lane][budget], each in R2's order) kept between the cycles of a scheduler,
 * brought up to date with the entries admission added and removed since the last cycle, instead of
 * every entry put in its queue again (philly-overload's backlog of 10,000-20,000 jobs: the largest
 * cost of a cycle once admission was kept). Speed only: the queues are exactly queuesOf(entries).
 *
 * A queue handed to a cycle is never changed afterwards: an update copies the queues it changes
 * (a cycle's deferred reasons read its queues when the result's reasons are first read, closed-lane.ts).
 * An update that would move many entries (a budget's entitlement appearing or vanishing re-admits
 * all its jobs) builds the queues afresh.
 */
export class KeptQueues {
  private queues: PendingEntry[][][] | null = null;
  /** The admission cycle the queues are for. */
  private cycle = -1;
  /** Each queue's columns (columnsOf), kept while the queue lives. */
  private readonly columns = new WeakMap<readonly PendingEntry[], EntryColumns>();

  /**
   * The queues of this cycle's `entries`: last cycle's updated with `delta` (the entries removed and
   * added since, from kept admission), or built afresh when last cycle's are not at hand.
   */
  forCycle(
    cycle: number,
    entries: readonly PendingEntry[],
    treeSize: number,
    delta: { removed: readonly PendingEntry[]; added: readonly PendingEntry[] } | null,
  ): PendingEntry[][][] {
    const last = this.queues;
    const kept = last !== null && delta !== null && this.cycle === cycle - 1 && last[0]!.length === treeSize;
    const moved = delta === null ? Infinity : delta.removed.length + delta.added.length;
    this.queues = kept && moved <= entries.length / 8 + 16 ? update(last!, delta!, this.columns) : null;
    this.queues ??= queuesOf(entries, treeSize);
    this.cycle = cycle;
    return this.queues;
  }

  /**
   * What the walks read of a queue's entries, as columns in its order (entry-columns.ts; a closed
   * lane writes the order from its ids, closed-lane.ts): kept with the queue itself, which never
   * changes once handed out, so a budget's queue that no job joined or left since costs no look at
   * its entries, and an update moves the columns of the queues it changes with their entries (a
   * budget that gained a job does not read its thousands again). A queue whose length moved
   * (PendingQueues.add inserts into this cycle's copy) is read again.
   */
  columnsOf(queue: readonly PendingEntry[]): EntryColumns {
    let cols = this.columns.get(queue);
    if (cols === undefined || cols.length !== queue.length) {
      cols = EntryColumns.of(queue);
      this.columns.set(queue, cols);
    }
    return cols;
  }

  /** Forget the queues (a cycle that did not order its entries by them). */
  clear(): void {
    this.queues = null;
  }
}

/**
 * New queues: last cycle's, each changed one copied, without `removed` and with `added`; null if one
 * is missing. A changed queue's columns (`columns`), when known, move to its copy and change with it.
 */
function update(
  last: PendingEntry[][][],
  delta: { removed: readonly PendingEntry[]; added: readonly PendingEntry[] },
  columns: WeakMap<readonly PendingEntry[], EntryColumns>,
): PendingEntry[][][] | null {
  const queues = last.map((lane) => lane.slice());
  const copied = last.map((lane) => new Uint8Array(lane.length));
  const colsOf: (EntryColumns | undefined)[][] = last.map(() => []);
  const own = (e: PendingEntry): PendingEntry[] => {
    const l = LANE_INDEX[e.lane];
    if (copied[l]![e.budget] === 0) {
      copied[l]![e.budget] = 1;
      const old = queues[l]![e.budget]!;
      const q = old.slice();
      queues[l]![e.budget] = q;
      // The columns move to the new queue and change with it: only the cycle the old queue was
      // handed to read them, and it is over.
      const known = columns.get(old);
      columns.delete(old);
      if (known !== undefined && known.length === old.length) {
        columns.set(q, known);
        colsOf[l]![e.budget] = known;
      }
    }
    return queues[l]![e.budget]!;
  };
  for (const e of delta.removed) {
    const q = own(e);
    const at = queueLowerBound(q, e);
    if (q[at] !== e) return null;
    q.splice(at, 1);
    colsOf[LANE_INDEX[e.lane]]![e.budget]?.remove(at);
  }
  for (const e of delta.added) {
    const q = own(e);
    const at = queueLowerBound(q, e);
    if (at < q.length && compareEntries(q[at]!, e) === 0) return null; // the same job twice
    q.splice(at, 0, e);
    colsOf[LANE_INDEX[e.lane]]![e.budget]?.insert(at, e);
  }
  return queues;
}
