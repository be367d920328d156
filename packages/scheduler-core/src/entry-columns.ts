import { LANE_INDEX, type PendingEntry } from "./order-pending";
import type { JobLane, PendingJob } from "./types";

const LANES: readonly JobLane[] = ["DEBUG", "ALLOCATED", "UNALLOCATED"];
const UNALLOCATED = LANE_INDEX.UNALLOCATED;

/**
 * Speed bookkeeping, no rule: what a walk reads of a pending entry that waits, kept as columns
 * beside a list of entries and moved with it: admission's queue-ordered entries (kept-admission.ts),
 * which a baseline walks, and each fair-tree queue (kept-queues.ts), which the lanes walk.
 *
 * On an overloaded cluster nearly every job a walk reaches waits, and a walk was mostly the first
 * read of each entry object, scattered over the heap (philly-overload, 30 days: the line that read an
 * entry's GPUs was 57% of the priority baseline's profile, the one that read its job 62% of the
 * allocated lane's own time). Read from these arrays, in order, the same facts come from a few
 * contiguous cache lines. The entry itself is read only for a job whose case needs more.
 */
export class EntryColumns {
  /**
   * Entries not of the unallocated lane (allocated and debug work), counted as they are inserted and
   * removed: a baseline's closed tail reports how many of its jobs wait (quiet-runs.ts) without a pass.
   */
  notUnallocated = 0;

  constructor(
    readonly ids: string[] = [],
    readonly gpus: number[] = [],
    readonly budget: number[] = [],
    /** LANE_INDEX of its lane. */
    readonly lane: number[] = [],
    readonly priority: number[] = [],
    readonly minRuntime: number[] = [],
    /** -1 for none. */
    readonly maxRuntime: number[] = [],
    readonly capped: boolean[] = [],
    /** PendingEntry.constrained: it names nodes (node-constraints.ts). */
    readonly constrained: boolean[] = [],
  ) {
    for (const l of lane) if (l !== UNALLOCATED) this.notUnallocated++;
  }

  get length(): number {
    return this.ids.length;
  }

  insert(at: number, e: PendingEntry): void {
    if (e.lane !== "UNALLOCATED") this.notUnallocated++;
    if (at === this.ids.length) {
      this.ids.push(e.id);
      this.gpus.push(e.gpus);
      this.budget.push(e.budget);
      this.lane.push(LANE_INDEX[e.lane]);
      this.priority.push(e.priority);
      this.minRuntime.push(e.minRuntime);
      this.maxRuntime.push(e.maxRuntime ?? -1);
      this.capped.push(e.capped);
      this.constrained.push(e.constrained);
      return;
    }
    this.ids.splice(at, 0, e.id);
    this.gpus.splice(at, 0, e.gpus);
    this.budget.splice(at, 0, e.budget);
    this.lane.splice(at, 0, LANE_INDEX[e.lane]);
    this.priority.splice(at, 0, e.priority);
    this.minRuntime.splice(at, 0, e.minRuntime);
    this.maxRuntime.splice(at, 0, e.maxRuntime ?? -1);
    this.capped.splice(at, 0, e.capped);
    this.constrained.splice(at, 0, e.constrained);
  }

  remove(at: number): void {
    const lane = this.lane[at];
    if (lane !== undefined && lane !== UNALLOCATED) this.notUnallocated--;
    this.ids.splice(at, 1);
    this.gpus.splice(at, 1);
    this.budget.splice(at, 1);
    this.lane.splice(at, 1);
    this.priority.splice(at, 1);
    this.minRuntime.splice(at, 1);
    this.maxRuntime.splice(at, 1);
    this.capped.splice(at, 1);
    this.constrained.splice(at, 1);
  }

  /**
   * Entry k's columns written into `probe` (probeEntry), which then stands in for the entry where only
   * these fields are read: its job, submit time and admission record are not set.
   */
  readInto(k: number, probe: PendingEntry): PendingEntry {
    probe.id = this.ids[k]!;
    probe.gpus = this.gpus[k]!;
    probe.budget = this.budget[k]!;
    probe.lane = LANES[this.lane[k]!]!;
    probe.priority = this.priority[k]!;
    probe.minRuntime = this.minRuntime[k]!;
    const max = this.maxRuntime[k]!;
    probe.maxRuntime = max < 0 ? null : max;
    probe.capped = this.capped[k]!;
    probe.constrained = this.constrained[k]!;
    return probe;
  }

  /** Columns of `entries`, in their order. */
  static of(entries: readonly PendingEntry[]): EntryColumns {
    const c = new EntryColumns();
    for (const e of entries) c.insert(c.length, e);
    return c;
  }
}

/** A scratch entry for readInto, of the entries' one shape (order-pending.ts pendingEntry): its job is a placeholder. */
export function probeEntry(): PendingEntry {
  return {
    job: NO_JOB,
    budget: -1,
    lane: "ALLOCATED",
    priority: 0,
    submittedAt: 0,
    id: "",
    gpus: 0,
    minRuntime: 0,
    maxRuntime: null,
    capped: false,
    constrained: false,
    admitted: null,
  };
}

const NO_JOB = Object.freeze({ id: "" }) as PendingJob;
