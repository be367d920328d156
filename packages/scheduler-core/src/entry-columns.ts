import { LANE_INDEX, type PendingEntry } from "./order-pending";

/**
 * Speed bookkeeping, no rule: what a walk reads of a pending entry that waits, kept as columns
 * beside a list of entries and moved with it (kept-admission.ts keeps its queue-ordered entries so).
 *
 * A baseline walks every pending job each cycle, and on an overloaded cluster nearly every one
 * waits, so its walk was mostly the first read of each entry object, scattered over the heap
 * (philly-overload, priority, 30 days: the line that read an entry's GPUs was 57% of the profile).
 * Read from these arrays of small integers, in order, the same facts come from a few contiguous
 * cache lines. The entry itself is read only for a job that starts.
 */
export class EntryColumns {
  readonly ids: string[] = [];
  readonly gpus: number[] = [];
  readonly budget: number[] = [];
  /** LANE_INDEX of its lane. */
  readonly lane: number[] = [];
  readonly priority: number[] = [];

  get length(): number {
    return this.ids.length;
  }

  insert(at: number, e: PendingEntry): void {
    if (at === this.ids.length) {
      this.ids.push(e.id);
      this.gpus.push(e.gpus);
      this.budget.push(e.budget);
      this.lane.push(LANE_INDEX[e.lane]);
      this.priority.push(e.priority);
      return;
    }
    this.ids.splice(at, 0, e.id);
    this.gpus.splice(at, 0, e.gpus);
    this.budget.splice(at, 0, e.budget);
    this.lane.splice(at, 0, LANE_INDEX[e.lane]);
    this.priority.splice(at, 0, e.priority);
  }

  remove(at: number): void {
    this.ids.splice(at, 1);
    this.gpus.splice(at, 1);
    this.budget.splice(at, 1);
    this.lane.splice(at, 1);
    this.priority.splice(at, 1);
  }

  /** Columns of `entries`, in their order. */
  static of(entries: readonly PendingEntry[]): EntryColumns {
    const c = new EntryColumns();
    for (const e of entries) c.insert(c.length, e);
    return c;
  }
}
