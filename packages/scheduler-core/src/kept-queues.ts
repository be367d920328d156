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
  /** Each queue's ids (idsOf), kept while the queue lives. */
  private readonly ids = new WeakMap<readonly PendingEntry[], readonly string[]>();

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
    this.queues = kept && moved <= entries.length / 8 + 16 ? update(last!, delta!, this.ids) : null;
    this.queues ??= queuesOf(entries, treeSize);
    this.cycle = cycle;
    return this.queues;
  }

  /**
   * A queue's job ids, in its order (a closed lane writes the order from them, closed-lane.ts): kept
   * with the queue itself, which never changes once handed out, so a budget's queue that no job
   * joined or left since costs no look at its entries, and an update moves the ids of the queues it
   * changes with their entries (a budget that gained a job does not read its thousands again). A
   * queue whose length moved (PendingQueues.add inserts into this cycle's copy) is read again.
   */
  idsOf(queue: readonly PendingEntry[]): readonly string[] {
    let ids = this.ids.get(queue);
    if (ids === undefined || ids.length !== queue.length) {
      ids = queue.map((e) => e.id);
      this.ids.set(queue, ids);
    }
    return ids;
  }

  /** Forget the queues (a cycle that did not order its entries by them). */
  clear(): void {
    this.queues = null;
  }
}

/**
 * New queues: last cycle's, each changed one copied, without `removed` and with `added`; null if one
 * is missing. A changed queue's ids (`ids`), when known, are copied and changed with it.
 */
function update(
  last: PendingEntry[][][],
  delta: { removed: readonly PendingEntry[]; added: readonly PendingEntry[] },
  ids: WeakMap<readonly PendingEntry[], readonly string[]>,
): PendingEntry[][][] | null {
  const queues = last.map((lane) => lane.slice());
  const copied = last.map((lane) => new Uint8Array(lane.length));
  const idsOf: (string[] | undefined)[][] = last.map(() => []);
  const own = (e: PendingEntry): PendingEntry[] => {
    const l = LANE_INDEX[e.lane];
    if (copied[l]![e.budget] === 0) {
      copied[l]![e.budget] = 1;
      const old = queues[l]![e.budget]!;
      const q = old.slice();
      queues[l]![e.budget] = q;
      const known = ids.get(old);
      if (known !== undefined && known.length === old.length) {
        const mine = known.slice();
        ids.set(q, mine);
        idsOf[l]![e.budget] = mine;
      }
    }
    return queues[l]![e.budget]!;
  };
  for (const e of delta.removed) {
    const q = own(e);
    const at = queueLowerBound(q, e);
    if (q[at] !== e) return null;
    q.splice(at, 1);
    idsOf[LANE_INDEX[e.lane]]![e.budget]?.splice(at, 1);
  }
  for (const e of delta.added) {
    const q = own(e);
    const at = queueLowerBound(q, e);
    if (at < q.length && compareEntries(q[at]!, e) === 0) return null; // the same job twice
    q.splice(at, 0, e);
    idsOf[LANE_INDEX[e.lane]]![e.budget]?.splice(at, 0, e.id);
  }
  return queues;
}
