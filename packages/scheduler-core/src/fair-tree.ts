import { treeShape, type TreeShape } from "./tree-shape";
import type { BudgetTreeNode } from "./types";

export { treeShape, type KnownShape, type TreeShape } from "./tree-shape";

/**
 * Working copy of the budget tree for one cycle: window aggregates, the GPUs each tree node holds
 * now, and the projected ratio of SPEC R2.
 *
 *   ratio(n)          = usage(n) / entitlement(n)
 *   projectedRatio(n) = (usage(n) + heldGpus(n) * projectionHorizon) / entitlement(n)
 *
 * Both are Infinity when n has zero allocation or zero entitlement (SPEC §2). usage(n) of a parent is
 * the sum of its children's; heldGpus(n) counts charged running jobs in n's subtree that are not
 * leaving, and is updated as the cycle starts and preempts jobs, so ranks move within a cycle.
 *
 * Tree nodes are indexed 0..size-1 in (name, id) order so iteration never depends on input order.
 * Tree nodes not connected to the root (orphans, cycles) are left out: their jobs are invalid.
 */
export class FairTree {
  readonly size: number;
  readonly ids: readonly string[];
  readonly names: readonly string[];
  /** Names from below the root down to the node, joined by "/" (used in sentences). */
  readonly paths: readonly string[];
  readonly parent: Int32Array;
  readonly depth: Int32Array;
  /** Children in (name, id) order. */
  readonly children: readonly (readonly number[])[];
  readonly usage: number[];
  readonly entitlement: number[];
  /** Product of allocations along the path, as a fraction of the cluster. */
  readonly effectiveAllocation: Float64Array;
  readonly held: number[];
  /** Bumped by every addHeld: an order decided at one version still stands at the same version. */
  version = 0;
  /** projectedRatio per node, kept up to date by addHeld (read once per sibling comparison). */
  private readonly projected: number[];
  readonly root: number;
  readonly shape: TreeShape;
  private readonly index: ReadonlyMap<string, number>;

  constructor(
    tree: readonly BudgetTreeNode[],
    readonly horizon: number,
    /** The tree's shape, when the caller has it (a scheduler's memory, see treeShape). */
    shape: TreeShape = treeShape(tree).shape,
  ) {
    this.shape = shape;
    const n = shape.size;
    this.size = n;
    this.ids = shape.ids;
    this.names = shape.names;
    this.paths = shape.paths;
    this.parent = shape.parent;
    this.depth = shape.depth;
    this.children = shape.children;
    this.effectiveAllocation = shape.effectiveAllocation;
    this.root = shape.root;
    this.index = shape.index;
    // Plain arrays of numbers, not Float64Arrays: a tree is built every cycle, and four typed arrays
    // cost more to allocate than the whole tree's arithmetic (about 4% of a small cycle).
    this.usage = zeros(n);
    this.entitlement = zeros(n);
    this.held = zeros(n);
    this.projected = zeros(n);
    const connected = shape.connected;
    for (let i = 0; i < n; i++) this.entitlement[i] = Math.max(0, connected[i]!.entitlementGpuSeconds);
    // A parent's usage is the sum of its leaves' (SPEC §2): add leaves bottom-up.
    for (let i = 0; i < n; i++) {
      if (this.children[i]!.length === 0) this.addAlongPath(this.usage, i, Math.max(0, connected[i]!.usageGpuSeconds));
    }
    for (let i = 0; i < n; i++) this.projected[i] = this.computeProjected(i);
  }

  indexOf(id: string): number | undefined {
    return this.index.get(id);
  }

  isLeaf(i: number): boolean {
    return this.children[i]!.length === 0;
  }

  /** SPEC §2: a budget has entitlement when its allocation and its window entitlement are positive. */
  hasEntitlement(i: number): boolean {
    return this.effectiveAllocation[i]! > 0 && this.entitlement[i]! > 0;
  }

  ratio(i: number): number {
    return this.hasEntitlement(i) ? this.usage[i]! / this.entitlement[i]! : Infinity;
  }

  projectedRatio(i: number): number {
    const r = this.projected[i];
    return r === undefined ? Infinity : r; // unknown index: no entitlement, as hasEntitlement says
  }

  private computeProjected(i: number): number {
    return this.hasEntitlement(i) ? (this.usage[i]! + this.held[i]! * this.horizon) / this.entitlement[i]! : Infinity;
  }

  /** Charged GPUs start (+) or stop (-) being held by a budget: every ancestor's rank moves. */
  addHeld(budget: number, gpus: number): void {
    this.version++;
    for (let cur = budget; cur >= 0; cur = this.parent[cur]!) {
      this.held[cur] = this.held[cur]! + gpus;
      this.projected[cur] = this.computeProjected(cur);
    }
  }

  private addAlongPath(arr: number[], i: number, v: number): void {
    for (let cur = i; cur >= 0; cur = this.parent[cur]!) arr[cur] = arr[cur]! + v;
  }

  /**
   * Healthy GPUs of the cluster this cycle (nodes neither in REPAIR nor DOWN): a tree node's owed
   * share is its effective allocation times this (R2, owed share first). Set by the cycle.
   */
  capacity = 0;

  /** GPUs a tree node is owed right now: effective allocation x healthy capacity. */
  owedGpus(i: number): number {
    return this.effectiveAllocation[i]! * this.capacity;
  }

  /** Owed share first (R2): the node has entitlement and holds fewer GPUs than its owed share. */
  underShare(i: number): boolean {
    return this.hasEntitlement(i) && this.held[i]! < this.owedGpus(i) - 1e-9;
  }

  /**
   * R2 sibling order: a child whose subtree holds owed work (a leaf under its own owed share with
   * pending jobs, `owed`) before one without; within each tier the lower projected ratio first; ties
   * by larger entitlement, then name, then id (indexes follow (name, id) order, so the index is the
   * last tie-break).
   */
  compareSiblings(a: number, b: number, owedA: boolean, owedB: boolean): number {
    if (owedA !== owedB) return owedA ? -1 : 1;
    const ra = this.projectedRatio(a);
    const rb = this.projectedRatio(b);
    if (ra !== rb) return ra < rb ? -1 : 1;
    const ea = this.entitlement[a]!;
    const eb = this.entitlement[b]!;
    if (ea !== eb) return ea > eb ? -1 : 1;
    return a - b;
  }

  /**
   * R4 (owed share first): may work of budget a preempt `gpus` GPUs of interruptible work of budget
   * b? Yes when a holds less than (1 - margin) of its owed share and b still holds at least its own
   * after losing those GPUs. Owed shares are the leaves' (the product of the allocations down the
   * path, which is what a budget is owed, SPEC §4); a division's share is the sum of its leaves', so
   * checking the leaves is what keeps every division's too. The second half is the thrash guard: the
   * victim never drops below its share, so it has no claim to win the GPUs straight back. With gpus
   * = 0 it says whether any victim of b could qualify.
   */
  mayTakeShare(a: number, b: number, gpus: number, margin = 0): boolean {
    if (a < 0 || b < 0 || a === b) return false;
    if (!this.shortBy(a, margin)) return false;
    return this.held[b]! - gpus >= this.owedGpus(b) - 1e-9;
  }

  /**
   * R4, R7: budget a is under its owed share by a real margin, below (1 - margin) of it; the GPUs it
   * waits for would come from ordinary turnover soon enough otherwise.
   */
  shortBy(a: number, margin: number): boolean {
    return this.hasEntitlement(a) && this.held[a]! < this.owedGpus(a) * (1 - margin) - 1e-9;
  }

  /**
   * R7 (a reservation's holder): budget a ranks ahead of budget b by more than the margin when, at the level where their
   * paths diverge, a's side has a projected ratio below b's side's ratio x (1 - margin). A side with
   * no entitlement (Infinity) is behind every side that has one.
   */
  /**
   * R7 (a due reservation's holder of whole nodes): may budget a take `gpus` GPUs of interruptible
   * work of budget b? Only when a ranks ahead of b by more than the margin, and:
   * - a is itself short of its owed share by the margin: whole nodes seldom come in the exact size of
   *   the shortfall, so b may be left below its own share (R4 alone would let the job starve);
   * - or the job needs several nodes, which turnover almost never frees together, and b keeps its own
   *   share without them: a's surplus may then come out of b's surplus, never out of b's share.
   * A one-node job of a budget above its share waits for turnover on its reserved node instead:
   * surplus taken from surplus is taken back by the next job in the same way. Measured on
   * philly-overload (docs §7): 8-GPU jobs of a budget 24x over its share took nodes from budgets at
   * and over their shares 129 times in 4 days. With gpus = 0 it says whether any victim of b could
   * qualify.
   */
  mayTakeSurplus(a: number, b: number, gpus: number, margin: number, severalNodes: boolean): boolean {
    if (a < 0 || b < 0 || a === b) return false;
    const aShort = this.shortBy(a, margin);
    const bKeepsShare = this.held[b]! - gpus >= this.owedGpus(b) - 1e-9;
    return (aShort || (severalNodes && bKeepsShare)) && this.ranksAheadBy(a, b, margin);
  }

  ranksAheadBy(a: number, b: number, margin: number): boolean {
    // Up to the two siblings under the lowest common ancestor (the level where the fair tree
    // decides between a and b), without allocating: this runs for every candidate victim.
    let x = a;
    let y = b;
    while (this.depth[x]! > this.depth[y]!) x = this.parent[x]!;
    while (this.depth[y]! > this.depth[x]!) y = this.parent[y]!;
    if (x === y) return false;
    while (this.parent[x] !== this.parent[y]) {
      x = this.parent[x]!;
      y = this.parent[y]!;
    }
    const ra = this.projectedRatio(x);
    const rb = this.projectedRatio(y);
    if (rb === Infinity) return ra !== Infinity;
    // "More than the margin", strictly; the 1e-12 keeps float noise from deciding an exact tie.
    return ra < rb * (1 - margin) * (1 - 1e-12);
  }
}

/** n zeros, as a plain array of doubles. */
export function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}
