import type { PendingEntry } from "../order-pending";

/**
 * The fair-tree order of every job the cycle looked at (CycleResult.order), kept as segments: ids
 * pushed one by one, runs of a queue's entries taken at once (the shared-outcome loop, the closed
 * unallocated lane), or ids copied at once as one slice (a baseline's quiet runs). The array of ids
 * is written when the result's order is first read.
 *
 * Speed bookkeeping, no rule. On an overloaded cluster the order is the whole backlog (philly-overload:
 * 10,000-20,000 jobs a cycle) and the simulator never reads it: the 60 days ran in 30.6 and 29.6 s
 * instead of 37.0 and 35.5 s (side by side) once its ids were no longer copied. A run is read from its
 * queue's entries, which never change once a cycle has them (kept-queues.ts), never from the queue's
 * columns, which the next cycle's update moves.
 */
export class OrderList {
  /** Jobs in the order so far (a job's 1-based position is the length once it is added). */
  length = 0;
  /** The ids pushed one by one, in order. */
  private readonly single: string[] = [];
  /**
   * Per run: how many ids were pushed one by one before it, its queue, where it starts there, how
   * many; or, for ids copied at once (pushIds), their copy in `copied` (null for a queue's run).
   */
  private readonly after: number[] = [];
  private readonly queue: (readonly PendingEntry[])[] = [];
  private readonly copied: (readonly string[] | null)[] = [];
  private readonly from: number[] = [];
  private readonly count: number[] = [];

  push(id: string): void {
    this.single.push(id);
    this.length++;
  }

  /**
   * Ids `from..to` of `ids`, copied now (a list that may change after the cycle: admission's columns),
   * as one slice: a baseline's quiet runs and closed tail push thousands a cycle.
   */
  pushIds(ids: readonly string[], from: number, to: number): void {
    if (to <= from) return;
    this.after.push(this.single.length);
    this.queue.push(NO_ENTRIES);
    this.copied.push(ids.slice(from, to));
    this.from.push(0);
    this.count.push(to - from);
    this.length += to - from;
  }

  /** Takes back the last id, pushed one by one (a debug job over its user's cap, lanes.ts). */
  pop(): void {
    const runs = this.after.length;
    if (this.single.length === 0 || (runs > 0 && this.after[runs - 1] === this.single.length))
      throw new Error("OrderList.pop: the last job was not pushed alone");
    this.single.pop();
    this.length--;
  }

  /** `count` entries of `queue` from `from`, in order (a queue handed to this cycle, never changed since). */
  pushEntries(queue: readonly PendingEntry[], from: number, count: number): void {
    if (count <= 0) return;
    this.after.push(this.single.length);
    this.queue.push(queue);
    this.copied.push(null);
    this.from.push(from);
    this.count.push(count);
    this.length += count;
  }

  /** The order's ids. */
  toArray(): string[] {
    const out = new Array<string>(this.length);
    const single = this.single;
    let at = 0;
    let s = 0;
    for (let r = 0; r < this.queue.length; r++) {
      for (const end = this.after[r]!; s < end; s++) out[at++] = single[s]!;
      const copied = this.copied[r] ?? null;
      if (copied !== null) {
        for (let k = 0; k < copied.length; k++) out[at++] = copied[k]!;
        continue;
      }
      const queue = this.queue[r]!;
      const from = this.from[r]!;
      for (let k = from; k < from + this.count[r]!; k++) out[at++] = queue[k]!.id;
    }
    while (s < single.length) out[at++] = single[s++]!;
    return out;
  }
}

const NO_ENTRIES: readonly PendingEntry[] = [];
