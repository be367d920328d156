import { nodeOrder, type NodeOrder } from "./node-order";
import type { JobState } from "./job-state";
import type { Node, NodeState } from "./types";
import { CapacityBounds, CATEGORIES } from "./capacity-bounds";
import { sortedInsert, sortedRemove } from "./sorted-list";

export type { JobState } from "./job-state";

/**
 * Working copy of the cluster's nodes for one cycle: which GPU index is taken by whom, free GPUs per
 * node bucketed by count (best fit in O(node size)), and the bounds of what each node could offer if
 * unallocated / interruptible / protected work left (capacity-bounds.ts).
 *
 * Nodes are indexed in (name, id) order: every "first node" below is deterministic.
 */
export class NodeBoard {
  readonly nodes: readonly Node[];
  readonly count: number;
  readonly state: NodeState[];
  readonly schedulable: boolean[];
  /** Largest gpuCount: the whole-node size for multi-node jobs. */
  readonly size: number;
  /**
   * GPUs of all nodes and of the schedulable ones, schedulable nodes, the largest schedulable node,
   * and the schedulable nodes of the whole-node size: fixed for the board's life (its nodes' states
   * and sizes are), so counted once here rather than by each cycle that reads them.
   */
  readonly totalGpus: number = 0;
  readonly schedulableGpus: number = 0;
  readonly schedulableNodes: number = 0;
  readonly largestSchedulableNode: number = 0;
  readonly schedulableWholeNodes: number = 0;
  /**
   * Per GPU (node offset + index): how many job states hold it (a waiting preemptor overlaps its
   * leaving victim). One flat array: cheap to build for a thousand nodes every cycle.
   */
  protected readonly occ: Uint16Array;
  protected readonly offset: Int32Array;
  /** Per GPU (same key): jobs that must exit before a new job may use it; sparse. */
  protected readonly exitWait = new Map<number, JobState[]>();
  readonly free: Int32Array;
  readonly jobsOn: JobState[][];
  /** buckets[k]: schedulable nodes with exactly k free GPUs, ascending index. */
  readonly buckets: number[][];
  /** What each node could offer if lower-ranked work left (see capacity-bounds.ts). */
  private readonly bounds: CapacityBounds;
  /** Node id -> index; shared with other boards of the same node order (see node-order.ts): read only. */
  private readonly index: ReadonlyMap<string, number>;
  private readonly addScratch = new Int32Array(CATEGORIES);
  readonly order: NodeOrder;
  /** Inverses of this cycle's occupy and vacate calls, while the board is kept for the next cycle. */
  protected undoLog: (() => void)[] | null = null;

  constructor(
    nodes: readonly Node[],
    effectiveState: ReadonlyMap<string, NodeState>,
    /** The cycle's time (a board kept between cycles gets each cycle's). */
    public now: number,
    /** The nodes' (name, id) order, when the caller has it (a scheduler's memory). */
    order: NodeOrder = nodeOrder(nodes),
  ) {
    this.order = order;
    this.nodes = order.sorted;
    this.index = order.index;
    this.count = this.nodes.length;
    this.state = this.nodes.map((n) => effectiveState.get(n.id) ?? n.state);
    // R1: only READY nodes take new work; an unhealthy or silent node is on its way out this cycle.
    this.schedulable = this.nodes.map((n, i) => this.state[i] === "READY" && n.health === "HEALTHY");
    this.size = this.nodes.reduce((m, n) => Math.max(m, n.gpuCount), 0);
    this.offset = new Int32Array(this.count + 1);
    for (let i = 0; i < this.count; i++) this.offset[i + 1] = this.offset[i]! + Math.max(0, this.nodes[i]!.gpuCount);
    this.occ = new Uint16Array(this.offset[this.count]!);
    this.free = new Int32Array(this.count);
    this.jobsOn = this.nodes.map(() => []);
    this.buckets = Array.from({ length: this.size + 1 }, () => [] as number[]);
    this.bounds = new CapacityBounds(this.count, this.size);
    for (let i = 0; i < this.count; i++) {
      const c = this.nodes[i]!.gpuCount;
      this.free[i] = Math.max(0, c);
      this.totalGpus += c;
      if (!this.schedulable[i]) continue;
      this.schedulableNodes++;
      this.schedulableGpus += c;
      if (c > this.largestSchedulableNode) this.largestSchedulableNode = c;
      if (c === this.size) this.schedulableWholeNodes++;
    }
  }

  indexOf(nodeId: string): number | undefined {
    return this.index.get(nodeId);
  }

  /** Records a job's GPUs (snapshot load); call finishLoad() once all are in. */
  load(js: JobState): void {
    const occ = this.occ;
    for (const s of js.slots) {
      this.jobsOn[s.node]!.push(js);
      const base = this.offset[s.node]!;
      const count = this.offset[s.node + 1]! - base;
      for (const g of s.gpus) if (g >= 0 && g < count) occ[base + g]!++;
    }
  }

  finishLoad(): void {
    for (let i = 0; i < this.count; i++) {
      let f = 0;
      for (let k = this.offset[i]!; k < this.offset[i + 1]!; k++) if (this.occ[k] === 0) f++;
      this.free[i] = f;
      if (this.schedulable[i] && f > 0) this.buckets[f]!.push(i);
      this.refreshCategories(i, true);
    }
  }

  private bucketRemove(k: number, node: number): void {
    if (k > 0) sortedRemove(this.buckets[k]!, node);
  }

  private bucketInsert(k: number, node: number): void {
    if (k > 0) sortedInsert(this.buckets[k]!, node);
  }

  /**
   * Bumped whenever the free GPUs of a schedulable node change (the buckets): a placement that failed
   * on free GPUs fails again, for the same size or larger, until it moves.
   */
  freeVersion = 0;

  protected setFree(node: number, f: number): void {
    const old = this.free[node]!;
    if (old === f) return;
    this.freeVersion++;
    if (this.schedulable[node]) {
      this.bucketRemove(old, node);
      this.bucketInsert(f, node);
    }
    this.free[node] = f;
  }

  /** GPUs of these slots on schedulable nodes (a JobState's schedulableGpus). */
  schedulableGpusOf(slots: readonly { node: number; gpus: readonly number[] }[]): number {
    let n = 0;
    for (const sl of slots) if (this.schedulable[sl.node]) n += sl.gpus.length;
    return n;
  }

  /** Classifies a job's GPUs for the bounds: 0 unallocated, 1 interruptible, 2 protected, -1 leaving. */
  category(js: JobState): number {
    if (js.gone || js.stopping) return -1;
    if (js.isNew) return 2;
    if (!js.charged) return 0;
    return this.now < js.protectedUntil ? 2 : 1;
  }

  protected refreshCategories(node: number, initial = false): void {
    const sched = this.schedulable[node]!;
    const add = this.addScratch; // no array per call: this runs for every node every cycle
    add[0] = add[1] = add[2] = 0;
    const jobs = this.jobsOn[node]!;
    for (let k = 0; k < jobs.length; k++) {
      const js = jobs[k]!;
      const c = this.category(js);
      if (c < 0) continue;
      for (let i = 0; i < js.slots.length; i++) if (js.slots[i]!.node === node) add[c]! += js.slots[i]!.gpus.length;
    }
    this.bounds.set(node, this.free[node]!, add, this.nodes[node]!.gpuCount, sched, initial);
  }

  /**
   * Upper bound: could a job of `gpus` start somewhere if every GPU of the given category and below
   * were available (0: free+unallocated, 1: +interruptible, 2: +protected)? Exact for a cluster
   * without reservations; reservations only make it optimistic.
   */
  couldFit(gpus: number, category: 0 | 1 | 2): boolean {
    return this.bounds.couldFit(gpus, category);
  }

  /** Schedulable nodes whose bound in category 0 or 1 is exactly `value`, ascending index. Read only. */
  nodesWithBound(category: 0 | 1, value: number): readonly number[] {
    return this.bounds.nodesWithBound(category, value);
  }

  /** What a node could offer: 0 free+unallocated, 1 +interruptible, 2 +protected GPUs. */
  bound(node: number, category: 0 | 1 | 2): number {
    return this.bounds.bound(node, category);
  }

  /** Free GPUs on schedulable nodes. */
  totalFree(): number {
    let n = 0;
    for (let k = 1; k < this.buckets.length; k++) n += k * this.buckets[k]!.length;
    return n;
  }

  /** Largest number of free GPUs on one schedulable node. */
  largestFree(): number {
    for (let k = this.size; k > 0; k--) if (this.buckets[k]!.length > 0) return k;
    return 0;
  }

  /** The lowest `count` free GPU indexes of a node. */
  freeIndexes(node: number, count: number): number[] {
    const out: number[] = [];
    const base = this.offset[node]!;
    const n = this.offset[node + 1]! - base;
    for (let g = 0; g < n && out.length < count; g++) if (this.occ[base + g] === 0) out.push(g);
    return out;
  }

  /**
   * Bumped by every occupy and vacate (and their undoing): which job holds which GPU changed, even
   * where no free count did (a GPU held twice). What reads the jobs on the nodes is valid while it stays.
   */
  jobsVersion = 0;

  /** A job starts: takes its GPUs; returns the leaving jobs it must wait for (R6 grace). */
  occupy(js: JobState): JobState[] {
    this.jobsVersion++;
    const wait: JobState[] = [];
    for (const s of js.slots) {
      const base = this.offset[s.node]!;
      for (const g of s.gpus) {
        this.occ[base + g]!++;
        if (this.exitWait.size === 0) continue;
        const ew = this.exitWait.get(base + g);
        if (!ew) continue;
        for (const w of ew) if (!wait.includes(w)) wait.push(w);
        this.exitWait.delete(base + g);
      }
      this.jobsOn[s.node]!.push(js);
      this.setFree(s.node, this.free[s.node]! - s.gpus.length);
      this.refreshCategories(s.node);
    }
    if (this.undoLog) this.undoLog.push(() => this.unoccupy(js));
    return wait;
  }

  /** Undoes occupy(): every GPU it took was free (occupy takes free indexes only). */
  private unoccupy(js: JobState): void {
    this.jobsVersion++;
    for (let i = js.slots.length - 1; i >= 0; i--) {
      const s = js.slots[i]!;
      const base = this.offset[s.node]!;
      for (const g of s.gpus) this.occ[base + g]!--;
      const list = this.jobsOn[s.node]!;
      list.splice(list.lastIndexOf(js), 1);
      this.setFree(s.node, this.free[s.node]! + s.gpus.length);
      this.refreshCategories(s.node);
    }
  }

  /**
   * A job is preempted or lost in this cycle: its GPUs become free for later starts in this cycle,
   * which must wait for it to exit.
   */
  vacate(js: JobState): void {
    this.jobsVersion++;
    js.gone = true;
    const undo = this.undoLog ? { at: [] as number[], freed: [] as number[] } : null;
    for (const s of js.slots) {
      const base = this.offset[s.node]!;
      const count = this.offset[s.node + 1]! - base;
      let freed = 0;
      for (const g of s.gpus) {
        if (g < 0 || g >= count) continue;
        const k = base + g;
        this.occ[k]!--;
        if (this.occ[k] === 0) {
          freed++;
          const ew = this.exitWait.get(k);
          if (ew) ew.push(js);
          else this.exitWait.set(k, [js]);
        }
      }
      const list = this.jobsOn[s.node]!;
      const at = list.indexOf(js);
      if (at >= 0) list.splice(at, 1);
      this.setFree(s.node, this.free[s.node]! + freed);
      this.refreshCategories(s.node);
      undo?.at.push(at);
      undo?.freed.push(freed);
    }
    if (undo) this.undoLog!.push(() => this.unvacate(js, undo.at, undo.freed));
  }

  /** Undoes vacate(): the job holds its GPUs again, at the same place in each node's list. */
  private unvacate(js: JobState, at: readonly number[], freed: readonly number[]): void {
    this.jobsVersion++;
    js.gone = false;
    for (let i = js.slots.length - 1; i >= 0; i--) {
      const s = js.slots[i]!;
      const base = this.offset[s.node]!;
      const count = this.offset[s.node + 1]! - base;
      for (const g of s.gpus) if (g >= 0 && g < count) this.occ[base + g]!++;
      if (at[i]! >= 0) this.jobsOn[s.node]!.splice(at[i]!, 0, js);
      this.setFree(s.node, this.free[s.node]! - freed[i]!);
      this.refreshCategories(s.node);
    }
  }

  /**
   * The latest exit of the leaving jobs on these nodes' GPUs (`now` when none): a start there waits at
   * most until then for them (planned drains count a start from it, planned-drains.ts).
   */
  latestExitOn(nodes: readonly number[]): number {
    let t = this.now;
    if (this.exitWait.size === 0) return t;
    for (const node of nodes)
      for (let k = this.offset[node]!; k < this.offset[node + 1]!; k++)
        for (const w of this.exitWait.get(k) ?? []) if (w.exitBy > t) t = w.exitBy;
    return t;
  }

  /** GPUs of a node that only `victims` hold (what preempting exactly them frees there). */
  freedBy(node: number, victims: readonly JobState[]): number {
    const base = this.offset[node]!;
    const count = this.offset[node + 1]! - base;
    const drop = new Uint16Array(count);
    for (const v of victims)
      for (const s of v.slots) if (s.node === node) for (const g of s.gpus) if (g >= 0 && g < count) drop[g]!++;
    let n = 0;
    for (let g = 0; g < count; g++) if (this.occ[base + g]! > 0 && this.occ[base + g] === drop[g]) n++;
    return n;
  }
}
