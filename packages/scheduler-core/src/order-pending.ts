import type { FairTree } from "./fair-tree";
import type { EntryColumns } from "./entry-columns";
import type { AdmittedRecord } from "./kept-admission";
import type { JobLane, PendingJob } from "./types";
import { hasNodeConstraint } from "./node-constraints";

/** A pending job with what the cycle needs to order it. */
export interface PendingEntry {
  job: PendingJob;
  /** Leaf index in the FairTree. */
  budget: number;
  lane: JobLane;
  /** The job's order keys, copied once: pending jobs come in many object shapes, entries in one. */
  priority: number;
  submittedAt: number;
  id: string;
  /**
   * What the lanes read of a job that waits, copied once too, so a walk over a blocked backlog reads
   * the entries only: its GPUs, its contract's runtimes (which reservations it may backfill, R7), and
   * whether it is an array task with a cap (job-rules.ts).
   */
  gpus: number;
  minRuntime: number;
  maxRuntime: number | null;
  capped: boolean;
  /**
   * It names nodes it must run on or avoid (node-constraints.ts), or its protection would cross a node's
   * planned drain (planned-drains.ts): its outcome is its own, never shared. Copied once with the entry,
   * so no cycle scans the backlog for such jobs.
   */
  constrained: boolean;
  /** What kept admission keeps of it (kept-admission.ts), or null. */
  admitted: AdmittedRecord | null;
}

export function pendingEntry(job: PendingJob, budget: number, lane: JobLane, crossesPlannedDrain = false): PendingEntry {
  return {
    job,
    budget,
    lane,
    priority: job.priority,
    submittedAt: job.submittedAt,
    id: job.id,
    gpus: job.gpus,
    minRuntime: job.minRuntime,
    maxRuntime: job.maxRuntime,
    capped: job.arrayId != null && job.arrayMaxRunning != null,
    constrained: crossesPlannedDrain || hasNodeConstraint(job),
    admitted: null,
  };
}

export { laneOf } from "./classify-job";

/** A pending job's order keys (R2), which never change while it waits: an entry's copies, or the job's own. */
export type QueueKeys = Pick<PendingEntry, "priority" | "submittedAt" | "id">;

/** Inside a budget (R2): higher priority first, then earlier original submit time, then id (on the entries' copied keys). */
export const compareEntries = (a: QueueKeys, b: QueueKeys): number => {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.submittedAt !== b.submittedAt) return a.submittedAt - b.submittedAt;
  return compareJobIds(a.id, b.id);
};

/**
 * Job ids in queue order: ids that are both whole numbers (the database's) by their value, so job 100
 * comes after job 99 (as text it came first: an array's tasks 96-101, submitted in the same second, began
 * with 100 and 101); any other ids as text.
 */
export function compareJobIds(a: string, b: string): number {
  if (a.length !== b.length && DIGITS.test(a) && DIGITS.test(b)) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
const DIGITS = /^[1-9]\d*$/;

/** The first place in `list` (in queue order) whose item does not come before `keys`: a binary search. */
export function queueLowerBound(list: readonly QueueKeys[], keys: QueueKeys): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(list[mid]!, keys) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Already in order (the simulator passes its backlog so): no sort. */
export function isSorted(
  q: readonly PendingEntry[],
  compare: (a: PendingEntry, b: PendingEntry) => number = compareEntries,
): boolean {
  for (let i = 1; i < q.length; i++) if (compare(q[i - 1]!, q[i]!) > 0) return false;
  return true;
}

export const LANE_INDEX: Record<JobLane, number> = { DEBUG: 0, ALLOCATED: 1, UNALLOCATED: 2 };

/** The entries in their queues, [lane][budget], each in order (R2: priority, submit time, id). */
export function queuesOf(entries: readonly PendingEntry[], treeSize: number): PendingEntry[][][] {
  const queues = [0, 1, 2].map(() => Array.from({ length: treeSize }, () => [] as PendingEntry[]));
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k]!;
    queues[LANE_INDEX[e.lane]]![e.budget]!.push(e);
  }
  for (const lane of queues) for (const q of lane) if (q.length > 1 && !isSorted(q)) q.sort(compareEntries);
  return queues;
}

/** A plain array of n small integers (packed: V8 keeps them unboxed). */
function filled(n: number, value: number): number[] {
  const a: number[] = [];
  for (let i = 0; i < n; i++) a.push(value);
  return a;
}

/**
 * R2 fair-tree order, taken one job at a time: from the root, at every level go to the child that
 * still has a pending job in this lane, owed work first (a leaf of its subtree under its own owed
 * share has jobs left), then the lowest projected ratio (ties: larger entitlement, then name); at the
 * budget take its next job by priority and submit time. Because the caller updates held GPUs as it
 * starts jobs, every pick sees the ratios and shares as they stand after the previous starts.
 * Cost per pick: O(depth x siblings), plus O(tree) when a start or a stop moved the shares;
 * independent of the number of pending jobs.
 */
export class PendingQueues {
  private readonly queues: PendingEntry[][][]; // [lane][treeNode]
  // The per-lane tables are plain arrays: made every cycle, a typed array of a tree's size costs a
  // backing store of its own (the 12 of a cycle were 4-5% of the 60-day replay's profile).
  private readonly cursor: number[][]; // [lane][treeNode]
  private readonly remaining: number[][]; // [lane][treeNode] pending jobs left in the subtree
  /**
   * Per lane: the budget of the last pick and the tree version it was made at. While no ratio moved
   * (same version) and that budget still has jobs, the walk from the root would end there again: every
   * comparison on the way reads only ratios, entitlements and which subtrees still have jobs, and
   * only that budget's path lost a job. Makes a pick O(1) between starts instead of O(depth x siblings).
   */
  private readonly lastLeaf = new Int32Array(3).fill(-1);
  private readonly lastVersion = [-1, -1, -1];
  /**
   * Per lane and tree node: how many leaves of its subtree are under their owed share with jobs left
   * (owed work, R2's first tier). Recounted when the tree's version moved or a leaf ran out of jobs.
   */
  private readonly owed: number[][];
  private readonly owedVersion = [-1, -1, -1];
  /**
   * Per lane: jobs the pick cache took from `lagLeaf` whose subtree counts (`remaining`) are not yet
   * lowered; settle() lowers them before anything reads the counts. Speed only: a run of picks from
   * one budget then costs a cursor step each instead of a walk up the tree.
   */
  private readonly lagLeaf = new Int32Array(3).fill(-1);
  private readonly lag = new Int32Array(3);

  /** Per lane and budget: the queue is shared with a scheduler's memory (kept-queues.ts), copied before add() changes it. */
  private readonly shared: number[][] | null;
  /** Per lane and budget: the queue's columns (entry-columns.ts), looked up on first use. */
  private readonly cols: (EntryColumns | undefined)[][] = [[], [], []];
  /** The lane, budget and index in its queue of the entry next() returned last. */
  takenLane = -1;
  takenBudget = -1;
  takenAt = -1;

  /**
   * `entries` in any order; or `kept`, the same entries already in their queues ([lane][budget], each
   * in order), which this object only reads (kept-queues.ts). `columnsOf` gives a queue's columns
   * (a scheduler keeps them with its queues).
   */
  constructor(
    private readonly tree: FairTree,
    entries: readonly PendingEntry[],
    kept: PendingEntry[][][] | null,
    private readonly columnsOf: (queue: readonly PendingEntry[]) => EntryColumns,
  ) {
    const n = tree.size;
    this.shared = kept !== null ? [filled(n, 1), filled(n, 1), filled(n, 1)] : null;
    this.queues = kept !== null ? kept.map((lane) => lane.slice()) : queuesOf(entries, n);
    this.cursor = [filled(n, 0), filled(n, 0), filled(n, 0)];
    this.remaining = [filled(n, 0), filled(n, 0), filled(n, 0)];
    this.owed = [filled(n, 0), filled(n, 0), filled(n, 0)];
    for (let l = 0; l < 3; l++) {
      const remaining = this.remaining[l]!;
      const lane = this.queues[l]!;
      for (let b = 0; b < lane.length; b++) {
        const n = lane[b]!.length;
        if (n > 0) for (let cur = b; cur >= 0; cur = tree.parent[cur]!) remaining[cur]! += n;
      }
    }
  }

  /** The next job of a lane in fair-tree order, or null when the lane is empty. */
  next(lane: JobLane): PendingEntry | null {
    const l = LANE_INDEX[lane];
    const remaining = this.remaining[l]!;
    const tree = this.tree;
    const last = this.lastLeaf[l]!;
    if (last >= 0 && this.lastVersion[l] === tree.version && this.cursor[l]![last]! < this.queues[l]![last]!.length)
      return this.takeInRun(l, last);
    this.settle(l);
    let node = tree.root;
    if (node < 0 || remaining[node]! === 0) return null;
    const owed = this.owedWork(l);
    for (;;) {
      const q = this.queues[l]![node]!;
      if (this.cursor[l]![node]! < q.length) break; // jobs sit at leaves; a leaf with work left
      let best = -1;
      const children = tree.children[node]!;
      for (let k = 0; k < children.length; k++) {
        const c = children[k]!;
        if (remaining[c]! === 0) continue;
        if (best < 0 || tree.compareSiblings(c, best, owed[c]! > 0, owed[best]! > 0) < 0) best = c;
      }
      if (best < 0) return null;
      node = best;
    }
    this.lastLeaf[l] = node;
    this.lastVersion[l] = tree.version;
    return this.take(l, node);
  }

  /**
   * Adds an entry to its lane mid-cycle, in its place among the budget's jobs not yet taken (a debug
   * job over its user's cap joins the allocated lane, R5). Clears the lane's pick cache.
   */
  add(entry: PendingEntry): void {
    const l = LANE_INDEX[entry.lane];
    this.settle(l);
    if (this.shared !== null && this.shared[l]![entry.budget] === 1) {
      this.shared[l]![entry.budget] = 0;
      this.queues[l]![entry.budget] = this.queues[l]![entry.budget]!.slice();
    }
    const q = this.queues[l]![entry.budget]!;
    let lo = this.cursor[l]![entry.budget]!;
    let hi = q.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareEntries(q[mid]!, entry) <= 0) lo = mid + 1;
      else hi = mid;
    }
    q.splice(lo, 0, entry);
    this.cols[l]![entry.budget] = undefined;
    for (let cur = entry.budget; cur >= 0; cur = this.tree.parent[cur]!) this.remaining[l]![cur]!++;
    this.lastLeaf[l] = -1;
  }

  /**
   * Every job left of the budget the next pick comes from, taken at once: `queue[from..]`. While no
   * start or stop moves the tree, next() takes a budget's jobs in a row (its pick cache) until none
   * is left, so a lane's rest is these runs, one after another. Null when the lane is empty.
   */
  nextRun(lane: JobLane): { queue: readonly PendingEntry[]; from: number; budget: number } | null {
    const first = this.next(lane);
    if (first === null) return null;
    const l = LANE_INDEX[lane];
    this.settle(l);
    const budget = first.budget;
    const queue = this.queues[l]![budget]!;
    const cursor = this.cursor[l]!;
    const rest = queue.length - cursor[budget]!;
    if (rest > 0) {
      cursor[budget] = queue.length;
      const remaining = this.remaining[l]!;
      for (let cur = budget; cur >= 0; cur = this.tree.parent[cur]!) remaining[cur] = remaining[cur]! - rest;
      this.owedVersion[l] = -1; // the leaf has no owed work left
    }
    return { queue, from: queue.length - rest - 1, budget };
  }

  /**
   * The queue the next picks of a lane would take their jobs from, in order from `from`, while no
   * start or stop moves the tree: the budget of the last pick (the pick cache, see next()). Null when
   * the cache would not answer the next pick. The caller takes the jobs it handles with skip().
   */
  runAfterTaken(lane: JobLane): { queue: readonly PendingEntry[]; from: number } | null {
    const l = LANE_INDEX[lane];
    const last = this.lastLeaf[l]!;
    if (last < 0 || last !== this.takenBudget || l !== this.takenLane || this.lastVersion[l] !== this.tree.version) return null;
    const queue = this.queues[l]![last]!;
    const from = this.cursor[l]![last]!;
    return from < queue.length ? { queue, from } : null;
  }

  /** Takes the next n jobs runAfterTaken named, as n picks would (takenAt: the last of them). */
  skip(lane: JobLane, n: number): void {
    if (n <= 0) return;
    const l = LANE_INDEX[lane];
    this.takenAt = this.advanceInRun(l, this.lastLeaf[l]!, n) - 1;
  }

  /** The queue next() took its last entry from; that entry is at `takenAt`. */
  takenQueue(): readonly PendingEntry[] {
    return this.queues[this.takenLane]![this.takenBudget]!;
  }

  /** The columns of the queue next() took its last entry from; that entry's are at `takenAt`. */
  takenColumns(): EntryColumns {
    return this.columns(this.takenLane, this.takenBudget);
  }

  /** The columns of a lane's queue of a budget (LANE_INDEX). */
  columns(l: number, budget: number): EntryColumns {
    return (this.cols[l]![budget] ??= this.columnsOf(this.queues[l]![budget]!));
  }

  /** take(), the pick cache's way: the subtree counts are lowered later (settle). */
  private takeInRun(l: number, node: number): PendingEntry {
    const at = this.advanceInRun(l, node, 1) - 1;
    this.takenLane = l;
    this.takenBudget = node;
    this.takenAt = at;
    return this.queues[l]![node]![at]!;
  }

  /** Moves a leaf's cursor on by n picks, its subtree counts lowered later (settle); the new cursor. */
  private advanceInRun(l: number, node: number, n: number): number {
    if (this.lagLeaf[l] !== node) {
      this.settle(l);
      this.lagLeaf[l] = node;
    }
    this.lag[l]! += n;
    const at = (this.cursor[l]![node]! += n);
    if (at === this.queues[l]![node]!.length) this.owedVersion[l] = -1; // the leaf has no owed work left
    return at;
  }

  /** Lowers the subtree counts by the picks takeInRun left for later. */
  private settle(l: number): void {
    const n = this.lag[l]!;
    if (n === 0) return;
    const remaining = this.remaining[l]!;
    for (let cur = this.lagLeaf[l]!; cur >= 0; cur = this.tree.parent[cur]!) remaining[cur] = remaining[cur]! - n;
    this.lag[l] = 0;
  }

  private take(l: number, node: number): PendingEntry {
    const at = this.cursor[l]![node]!++;
    const entry = this.queues[l]![node]![at]!;
    this.takenLane = l;
    this.takenBudget = node;
    this.takenAt = at;
    const remaining = this.remaining[l]!;
    for (let cur = node; cur >= 0; cur = this.tree.parent[cur]!) remaining[cur]!--;
    if (remaining[node] === 0) this.owedVersion[l] = -1; // the leaf has no owed work left
    return entry;
  }

  /** The owed-work counts of a lane, recounted if a start, a stop or a leaf running out moved them. */
  private owedWork(l: number): number[] {
    const owed = this.owed[l]!;
    const tree = this.tree;
    if (this.owedVersion[l] === tree.version) return owed;
    owed.fill(0);
    const remaining = this.remaining[l]!;
    for (let i = 0; i < tree.size; i++) {
      if (remaining[i]! === 0 || !tree.isLeaf(i) || !tree.underShare(i)) continue;
      for (let cur = i; cur >= 0; cur = tree.parent[cur]!) owed[cur]!++;
    }
    this.owedVersion[l] = tree.version;
    return owed;
  }
}
