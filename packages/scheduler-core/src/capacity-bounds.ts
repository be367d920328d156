import { sortedInsert, sortedRemove } from "./sorted-list";

/** Categories of a node's GPUs for cheap bounds: A1 = free+unallocated, A2 = A1+interruptible, A3 = A2+protected. */
export const CATEGORIES = 3;

/**
 * What each node of a board could offer if unallocated / interruptible / protected work left, with
 * histograms over the schedulable nodes, so a job that cannot start anywhere is known in O(node size)
 * instead of a scan of the cluster (needed to keep 50,000 pending jobs cheap). The node board
 * (cluster-state.ts) owns one and sets a node's values whenever its jobs or free GPUs change.
 */
export class CapacityBounds {
  private readonly cat: Int32Array[]; // cat[c][node] = A_{c+1}
  private readonly hist: Int32Array[]; // hist[c][value] over schedulable nodes
  private readonly full: Int32Array; // full[c]: schedulable whole-size nodes with A_{c+1} == size
  /** byBound[c][v]: schedulable nodes with A_{c+1} == v, ascending index (victim searches, categories 0 and 1). */
  private readonly byBound: number[][][];

  constructor(
    count: number,
    /** Largest gpuCount of the board: the whole-node size. */
    private readonly size: number,
  ) {
    this.cat = Array.from({ length: CATEGORIES }, () => new Int32Array(count));
    this.hist = Array.from({ length: CATEGORIES }, () => new Int32Array(size + 1));
    this.full = new Int32Array(CATEGORIES);
    this.byBound = [0, 1].map(() => Array.from({ length: size + 1 }, () => [] as number[]));
  }

  /**
   * A node's bounds from its free GPUs and `add[c]`, its GPUs held by work of category c (0
   * unallocated, 1 interruptible, 2 protected). `initial`: the first call for the node, while the
   * board loads nodes in ascending order.
   */
  set(node: number, free: number, add: Int32Array, gpuCount: number, sched: boolean, initial: boolean): void {
    const whole = gpuCount === this.size;
    let acc = free;
    for (let c = 0; c < CATEGORIES; c++) {
      acc += add[c]!;
      const v = Math.min(acc, gpuCount);
      const old = this.cat[c]![node]!;
      if (sched) {
        if (!initial) {
          if (old === v) continue;
          this.hist[c]![old] = this.hist[c]![old]! - 1;
          if (whole && old === this.size) this.full[c] = this.full[c]! - 1;
          if (c < 2) sortedRemove(this.byBound[c]![old]!, node);
        }
        this.hist[c]![v] = this.hist[c]![v]! + 1;
        if (whole && v === this.size) this.full[c] = this.full[c]! + 1;
        if (c < 2) {
          if (initial)
            this.byBound[c]![v]!.push(node); // nodes load in ascending order
          else sortedInsert(this.byBound[c]![v]!, node);
        }
      }
      this.cat[c]![node] = v;
    }
  }

  /** See NodeBoard.couldFit. */
  couldFit(gpus: number, category: 0 | 1 | 2): boolean {
    if (gpus <= this.size) {
      const h = this.hist[category]!;
      for (let v = this.size; v >= gpus; v--) if (h[v]! > 0) return true;
      return false;
    }
    return this.size > 0 && this.full[category]! >= gpus / this.size;
  }

  /** Schedulable nodes whose bound in category 0 or 1 is exactly `value`, ascending index. Read only. */
  nodesWithBound(category: 0 | 1, value: number): readonly number[] {
    return this.byBound[category]![value] ?? [];
  }

  /** What a node could offer: 0 free+unallocated, 1 +interruptible, 2 +protected GPUs. */
  bound(node: number, category: 0 | 1 | 2): number {
    return this.cat[category]![node]!;
  }
}
