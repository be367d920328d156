import { isAllocated } from "./contract";
import { FairTree } from "./fair-tree";
import type { ClusterSnapshot, PolicyConfig, TreeNodeRatio } from "./types";

/**
 * Ratios of every budget-tree node for a snapshot, without scheduling anything (the budget pages and
 * the what-if view): usage / entitlement, and the R2 projected ratio counting the charged GPUs each
 * node holds now. Same numbers as runCycle's `ratios` (projectedRatioAfter = projectedRatio here).
 */
export function computeRatios(
  snapshot: Pick<ClusterSnapshot, "tree" | "running">,
  policy: Pick<PolicyConfig, "projectionHorizon">,
): TreeNodeRatio[] {
  const tree = new FairTree(snapshot.tree, policy.projectionHorizon);
  for (const job of snapshot.running) {
    if (job.stopping) continue;
    const budget = tree.indexOf(job.budgetId);
    if (budget === undefined) continue;
    const charged = job.charged ?? isAllocated(job, tree.hasEntitlement(budget));
    if (charged) tree.addHeld(budget, job.gpus);
  }
  const out: TreeNodeRatio[] = [];
  for (let i = 0; i < tree.size; i++) {
    const projected = tree.projectedRatio(i);
    out.push({
      treeNodeId: tree.ids[i]!,
      name: tree.names[i]!,
      parentId: tree.parent[i]! >= 0 ? tree.ids[tree.parent[i]!]! : null,
      effectiveAllocation: tree.effectiveAllocation[i]!,
      usageGpuSeconds: tree.usage[i]!,
      entitlementGpuSeconds: tree.entitlement[i]!,
      ratio: tree.ratio(i),
      heldGpus: tree.held[i]!,
      projectedRatio: projected,
      projectedRatioAfter: projected,
    });
  }
  return out;
}
