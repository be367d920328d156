import { compareByNameThenId, PPM } from "./budget-tree";
import type { BudgetTreeNode } from "./types";

/**
 * What a FairTree takes from the tree's structure: order, parents, paths, effective allocations.
 * Never mutated once built.
 */
export interface TreeShape {
  readonly size: number;
  readonly ids: readonly string[];
  readonly names: readonly string[];
  readonly paths: readonly string[];
  readonly parent: Int32Array;
  readonly depth: Int32Array;
  readonly children: readonly (readonly number[])[];
  readonly effectiveAllocation: Float64Array;
  readonly root: number;
  readonly index: ReadonlyMap<string, number>;
  /** The input nodes in index order (usage and entitlement are read from them every cycle). */
  readonly connected: readonly BudgetTreeNode[];
}

/** A shape with what it was built from, so a later cycle can tell whether it still holds. */
export interface KnownShape {
  readonly input: readonly BudgetTreeNode[];
  /** id, parentId, name and allocationPpm of every input node when the shape was built. */
  readonly fields: readonly (string | number | null)[];
  readonly shape: TreeShape;
}
const FIELDS = 4;

/**
 * The shape of a tree. Given the shape of an earlier cycle (`known`, a scheduler's memory; the
 * simulator only updates usage and entitlement), it is returned after an O(tree) check that the same
 * node objects hold the same ids, parents, names and allocations; anything else builds it afresh.
 */
export function treeShape(tree: readonly BudgetTreeNode[], known: KnownShape | null = null): KnownShape {
  if (known && known.input.length === tree.length) {
    const f = known.fields;
    let same = true;
    for (let i = 0; i < tree.length && same; i++) {
      const n = tree[i]!;
      const k = i * FIELDS;
      same =
        n === known.input[i] && n.id === f[k] && n.parentId === f[k + 1] && n.name === f[k + 2] && n.allocationPpm === f[k + 3];
    }
    if (same) return known;
  }
  const shape = buildShape(tree);
  const fields: (string | number | null)[] = [];
  for (const n of tree) fields.push(n.id, n.parentId, n.name, n.allocationPpm);
  return { input: [...tree], fields, shape };
}

function buildShape(tree: readonly BudgetTreeNode[]): TreeShape {
  const byId = new Map<string, BudgetTreeNode>();
  for (const n of tree) if (!byId.has(n.id)) byId.set(n.id, n);
  const roots = [...byId.values()].filter((n) => n.parentId === null).sort(compareByNameThenId);
  const rootNode = roots[0];
  // Keep only nodes whose parent chain reaches the chosen root.
  const connected = [...byId.values()].filter((n) => {
    const seen = new Set<string>();
    let cur: BudgetTreeNode | undefined = n;
    while (cur && cur.parentId !== null && !seen.has(cur.id)) {
      seen.add(cur.id);
      cur = byId.get(cur.parentId);
    }
    return cur !== undefined && cur === rootNode;
  });
  connected.sort(compareByNameThenId);
  const n = connected.length;
  const ids = connected.map((x) => x.id);
  const names = connected.map((x) => x.name);
  const index = new Map<string, number>();
  connected.forEach((x, i) => index.set(x.id, i));
  const parent = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const children = Array.from({ length: n }, () => [] as number[]);
  const effectiveAllocation = new Float64Array(n);
  const root = rootNode ? (index.get(rootNode.id) ?? -1) : -1;
  for (let i = 0; i < n; i++) {
    const node = connected[i]!;
    if (node.parentId !== null) {
      const p = index.get(node.parentId)!;
      parent[i] = p;
      children[p]!.push(i); // pushed in (name, id) order since i ascends
    }
  }
  // Depth, effective allocation and paths top-down (parents before children via BFS). A path names
  // the root too ("lab/language/pretraining"), as the budget's path does everywhere else people read it.
  const paths = new Array<string>(n).fill("");
  const queue: number[] = root >= 0 ? [root] : [];
  if (root >= 0) {
    effectiveAllocation[root] = 1;
    paths[root] = names[root]!;
  }
  for (let q = 0; q < queue.length; q++) {
    const p = queue[q]!;
    for (const c of children[p]!) {
      depth[c] = depth[p]! + 1;
      effectiveAllocation[c] = (effectiveAllocation[p]! * connected[c]!.allocationPpm) / PPM;
      paths[c] = `${paths[p]}/${names[c]}`;
      queue.push(c);
    }
  }
  return { size: n, ids, names, paths, parent, depth, children, effectiveAllocation, root, index, connected };
}
