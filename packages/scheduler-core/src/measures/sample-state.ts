import { effectiveAllocations } from "../budget-tree";
import { isAllocated } from "../contract";
import type { ClusterSnapshot, Node } from "../types";

/**
 * What a cluster looks like at one moment, as rates (GPUs), for the SPEC §4 measures. The simulator
 * samples after each event and feeds HourlyAccumulator with the time until the next one; the worker
 * can do the same each cycle, or build intervals from DB rows directly.
 */
export interface StateSample {
  clusterId: string;
  totalGpus: number;
  healthyGpus: number;
  allocatedGpus: number;
  unallocatedGpus: number;
  /** Free GPUs on READY healthy nodes. */
  idleGpus: number;
  /** A pending allocated job could not be placed (SPEC §4 fragmentation counts idle GPUs then). */
  allocatedBlocked: boolean;
  budgets: BudgetSample[];
}

export interface BudgetSample {
  budgetId: string;
  /** Effective allocation x healthy GPUs. */
  entitlementGpus: number;
  /** GPUs of its allocated jobs, running or pending (not held). */
  demandGpus: number;
  /** GPUs of its charged running jobs. */
  ranGpus: number;
}

/** A node counts as healthy capacity while it is up, reports healthy and is not in repair. */
export function isHealthyCapacity(node: Pick<Node, "state" | "health">): boolean {
  return node.health === "HEALTHY" && (node.state === "READY" || node.state === "CORDONED" || node.state === "DRAINING");
}

/**
 * Samples a snapshot (normally the state after a cycle's plan was applied). `allocatedBlocked`
 * defaults to "some allocated job is pending and not held", which is what a cycle leaves behind.
 */
export function sampleSnapshot(
  snapshot: Pick<ClusterSnapshot, "cluster" | "nodes" | "tree" | "running" | "pending">,
  options: { allocatedBlocked?: boolean } = {},
): StateSample {
  let total = 0;
  let healthy = 0;
  let idle = 0;
  const used = new Map<string, number>();
  for (const j of snapshot.running)
    for (const p of j.placement) used.set(p.nodeId, (used.get(p.nodeId) ?? 0) + p.gpuIndexes.length);
  for (const n of snapshot.nodes) {
    total += n.gpuCount;
    if (isHealthyCapacity(n)) healthy += n.gpuCount;
    if (n.state === "READY" && n.health === "HEALTHY") idle += Math.max(0, n.gpuCount - (used.get(n.id) ?? 0));
  }
  const eff = effectiveAllocations(snapshot.tree);
  const entitled = new Map<string, boolean>();
  for (const t of snapshot.tree) entitled.set(t.id, (eff.get(t.id) ?? 0) > 0 && t.entitlementGpuSeconds > 0);
  const leaves = new Set(snapshot.tree.map((t) => t.id));
  for (const t of snapshot.tree) if (t.parentId !== null) leaves.delete(t.parentId);

  const budgets = new Map<string, BudgetSample>();
  const budget = (id: string): BudgetSample => {
    let b = budgets.get(id);
    if (!b) {
      b = { budgetId: id, entitlementGpus: (eff.get(id) ?? 0) * healthy, demandGpus: 0, ranGpus: 0 };
      budgets.set(id, b);
    }
    return b;
  };
  for (const id of [...leaves].sort()) budget(id);
  let allocated = 0;
  let unallocated = 0;
  for (const j of snapshot.running) {
    const charged = j.charged ?? isAllocated(j, entitled.get(j.budgetId) ?? false);
    if (charged) {
      allocated += j.gpus;
      const b = budget(j.budgetId);
      b.ranGpus += j.gpus;
      if (!j.stopping) b.demandGpus += j.gpus;
    } else unallocated += j.gpus;
  }
  let blocked = false;
  for (const j of snapshot.pending) {
    if (j.held || !isAllocated(j, entitled.get(j.budgetId) ?? false)) continue;
    blocked = true;
    budget(j.budgetId).demandGpus += j.gpus;
  }
  return {
    clusterId: snapshot.cluster.id,
    totalGpus: total,
    healthyGpus: healthy,
    allocatedGpus: allocated,
    unallocatedGpus: unallocated,
    idleGpus: idle,
    allocatedBlocked: options.allocatedBlocked ?? blocked,
    budgets: [...budgets.values()].sort((a, b) => (a.budgetId < b.budgetId ? -1 : a.budgetId > b.budgetId ? 1 : 0)),
  };
}
