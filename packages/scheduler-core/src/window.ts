import { PPM } from "./budget-tree";
import type { AllocationChange, BudgetTreeNode, CapacityChange, PolicyConfig, UsageSegment } from "./types";

/**
 * Window aggregates (SPEC §2): usage and entitlement of every budget-tree node over the sliding
 * lookback window ending at `now`. The worker computes them from ledger rows and allocation history,
 * the simulator from its own segments; both then build the snapshot's tree with withWindowAggregates.
 */

interface TreeShape {
  id: string;
  parentId: string | null;
}

interface TreeWithAllocation extends TreeShape {
  allocationPpm: number;
}

/** Ancestor chains, leaf first, root last; cycles and orphans end the chain. */
function ancestorChains(tree: readonly TreeShape[]): Map<string, string[]> {
  const parent = new Map<string, string | null>();
  for (const n of tree) parent.set(n.id, n.parentId);
  const chains = new Map<string, string[]>();
  for (const n of tree) {
    const chain: string[] = [];
    const seen = new Set<string>();
    let cur: string | null = n.id;
    while (cur !== null && parent.has(cur) && !seen.has(cur)) {
      seen.add(cur);
      chain.push(cur);
      cur = parent.get(cur) ?? null;
    }
    chains.set(n.id, chain);
  }
  return chains;
}

/**
 * Usage in GPU-seconds of every tree node inside [now - lookbackWindow, now]: each segment is clipped
 * to the window (a running segment counts up to now) and charged to its budget and every ancestor, so a
 * parent's usage is the sum of its children's. Segments of unknown budgets are ignored.
 * Only charged segments (allocated occupancy) belong here; unallocated runs are free.
 */
export function computeUsage(
  segments: readonly UsageSegment[],
  tree: readonly TreeShape[],
  now: number,
  policy: Pick<PolicyConfig, "lookbackWindow">,
): Record<string, number> {
  const windowStart = now - policy.lookbackWindow;
  const chains = ancestorChains(tree);
  const usage: Record<string, number> = {};
  for (const n of tree) usage[n.id] = 0;
  for (const s of segments) {
    const chain = chains.get(s.budgetId);
    if (!chain) continue;
    const start = Math.max(s.start, windowStart);
    const end = Math.min(s.end ?? now, now);
    if (end <= start) continue;
    const gpuSeconds = s.gpus * (end - start);
    for (const id of chain) usage[id] = (usage[id] ?? 0) + gpuSeconds;
  }
  return usage;
}

/**
 * Entitlement in GPU-seconds of every tree node inside [now - lookbackWindow, now]:
 *
 *   E(node) = integral over the window of  prod(allocation along the path at t) x healthyGpus(t) dt
 *
 * with piecewise-constant allocation history (the last change at or before t is in force; changes
 * with the same `at` apply in input order, the history being append-only) and piecewise-constant
 * healthy capacity. A tree node without any history keeps its current `allocationPpm` throughout;
 * before the first capacity change the cluster has no capacity.
 *
 * Young window rule (SPEC §2): when the history covering a node starts inside the window (a new
 * cluster, a new budget, the start of a simulation) and less than projectionHorizon has elapsed, the
 * missing time up to projectionHorizon counts at the current rate, so ratios are finite and
 * meaningful from the first cycle. Results are rounded to whole GPU-seconds.
 */
export function computeEntitlements(
  tree: readonly TreeWithAllocation[],
  allocationHistory: readonly AllocationChange[],
  capacityHistory: readonly CapacityChange[],
  now: number,
  policy: Pick<PolicyConfig, "lookbackWindow" | "projectionHorizon">,
): Record<string, number> {
  const windowStart = now - policy.lookbackWindow;
  const chains = ancestorChains(tree);

  // Per-node history, stable-sorted by time (ties keep input order).
  const history = new Map<string, AllocationChange[]>();
  for (const c of allocationHistory) {
    if (c.at > now) continue;
    const list = history.get(c.treeNodeId);
    if (list) list.push(c);
    else history.set(c.treeNodeId, [c]);
  }
  for (const list of history.values()) list.sort((a, b) => a.at - b.at);
  const capacity = capacityHistory.filter((c) => c.at <= now).sort((a, b) => a.at - b.at);
  const current = new Map<string, number>();
  for (const n of tree) current.set(n.id, n.allocationPpm);

  // Breakpoints: window start, every change inside the window, now.
  const times = new Set<number>([windowStart, now]);
  for (const list of history.values()) for (const c of list) if (c.at > windowStart) times.add(c.at);
  for (const c of capacity) if (c.at > windowStart) times.add(c.at);
  const points = [...times].sort((a, b) => a - b);

  const allocationAt = (id: string, t: number): number => {
    const list = history.get(id);
    if (!list) return current.get(id) ?? 0;
    let v: number | null = null;
    for (const c of list) {
      if (c.at <= t) v = c.allocationPpm;
      else break;
    }
    return v ?? 0;
  };
  const capacityAt = (t: number): number => {
    let v = 0;
    for (const c of capacity) {
      if (c.at <= t) v = c.healthyGpus;
      else break;
    }
    return v;
  };
  // The root holds 100% of the cluster; below it allocations multiply.
  const fractionAt = (chain: readonly string[], t: number): number => {
    let f = 1;
    for (let i = 0; i < chain.length - 1; i++) f *= allocationAt(chain[i]!, t) / PPM;
    return f;
  };

  const raw = new Map<string, number>();
  for (const n of tree) raw.set(n.id, 0);
  for (let i = 0; i + 1 < points.length; i++) {
    const t0 = points[i]!;
    const dt = points[i + 1]! - t0;
    const cap = capacityAt(t0);
    if (dt <= 0 || cap <= 0) continue;
    for (const n of tree) {
      const chain = chains.get(n.id) ?? [];
      raw.set(n.id, (raw.get(n.id) ?? 0) + fractionAt(chain, t0) * cap * dt);
    }
  }

  const firstCapacity = capacity[0]?.at ?? now;
  const out: Record<string, number> = {};
  for (const n of tree) {
    const chain = chains.get(n.id) ?? [];
    // History covering this node starts at the latest first-record along its path (or capacity).
    let coverageStart = firstCapacity;
    for (let i = 0; i < chain.length - 1; i++) {
      const first = history.get(chain[i]!)?.[0]?.at;
      if (first !== undefined && first > coverageStart) coverageStart = first;
    }
    let e = raw.get(n.id) ?? 0;
    const elapsed = now - Math.max(coverageStart, windowStart);
    if (coverageStart > windowStart && elapsed < policy.projectionHorizon) {
      e += fractionAt(chain, now) * capacityAt(now) * (policy.projectionHorizon - elapsed);
    }
    out[n.id] = Math.round(e);
  }
  return out;
}

/** The snapshot's tree: each node with its usage and entitlement (missing values count as 0). */
export function withWindowAggregates(
  tree: readonly Omit<BudgetTreeNode, "usageGpuSeconds" | "entitlementGpuSeconds">[],
  usage: Readonly<Record<string, number>>,
  entitlement: Readonly<Record<string, number>>,
): BudgetTreeNode[] {
  return tree.map((n) => ({
    id: n.id,
    name: n.name,
    parentId: n.parentId,
    allocationPpm: n.allocationPpm,
    usageGpuSeconds: usage[n.id] ?? 0,
    entitlementGpuSeconds: entitlement[n.id] ?? 0,
  }));
}
