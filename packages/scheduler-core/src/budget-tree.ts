import type { ValidationResult } from "./types";

/** One million parts per million: the whole of a parent's allocation. */
export const PPM = 1_000_000;

interface TreeLike {
  id: string;
  name: string;
  parentId: string | null;
  allocationPpm: number;
}

/** Deterministic order of jobs everywhere in the core: by id. */
export function compareById(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Deterministic sibling order everywhere in the core: by name, then id. */
export function compareByNameThenId(a: { name: string; id: string }, b: { name: string; id: string }): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * SPEC §6 checks on a budget tree: exactly one root, no orphans, no cycles, allocations in
 * 0..1_000_000 ppm and siblings summing to at most 1_000_000 (checked exactly, integers).
 */
export function validateBudgetTree(tree: readonly TreeLike[]): ValidationResult {
  const errors: string[] = [];
  const byId = new Map<string, TreeLike>();
  for (const n of tree) {
    if (byId.has(n.id)) errors.push(`duplicate tree node id ${n.id}`);
    byId.set(n.id, n);
  }
  const roots = tree.filter((n) => n.parentId === null);
  if (roots.length !== 1) errors.push(`the tree must have exactly one root, found ${roots.length}`);
  const sums = new Map<string, number>();
  for (const n of tree) {
    if (!Number.isInteger(n.allocationPpm) || n.allocationPpm < 0 || n.allocationPpm > PPM)
      errors.push(`allocation of ${n.name} must be a whole number of ppm in 0..${PPM}, got ${n.allocationPpm}`);
    if (n.parentId !== null) {
      if (!byId.has(n.parentId)) errors.push(`${n.name} is an orphan: parent ${n.parentId} does not exist`);
      else sums.set(n.parentId, (sums.get(n.parentId) ?? 0) + n.allocationPpm);
    }
  }
  for (const [parentId, sum] of [...sums].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (sum > PPM) {
      const p = byId.get(parentId);
      errors.push(`children of ${p?.name ?? parentId} are allocated ${(sum / 10_000).toFixed(4)}% in total, above 100%`);
    }
  }
  // A cycle: following parents from some node never reaches a root.
  for (const n of tree) {
    const seen = new Set<string>();
    let cur: TreeLike | undefined = n;
    while (cur && cur.parentId !== null) {
      if (seen.has(cur.id)) {
        errors.push(`the tree has a cycle through ${n.name}`);
        break;
      }
      seen.add(cur.id);
      cur = byId.get(cur.parentId);
    }
  }
  return errors.length === 0 ? { ok: true } : { ok: false, errors };
}

/**
 * Effective allocation of every tree node as a fraction of the cluster: the product of allocations
 * along its path (the root holds 100% whatever its own field says). Unknown parents count as 0.
 */
export function effectiveAllocations(tree: readonly TreeLike[]): Map<string, number> {
  const byId = new Map<string, TreeLike>();
  for (const n of tree) byId.set(n.id, n);
  const out = new Map<string, number>();
  const visiting = new Set<string>();
  const get = (id: string): number => {
    const cached = out.get(id);
    if (cached !== undefined) return cached;
    const n = byId.get(id);
    if (!n || visiting.has(id)) return 0;
    visiting.add(id);
    const v = n.parentId === null ? 1 : (get(n.parentId) * n.allocationPpm) / PPM;
    visiting.delete(id);
    out.set(id, v);
    return v;
  };
  for (const n of tree) get(n.id);
  return out;
}
