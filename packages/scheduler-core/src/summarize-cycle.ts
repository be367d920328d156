import type { NodeBoard } from "./cluster-state";
import type { FairTree } from "./fair-tree";
import type { PlanOp, TreeNodeRatio } from "./types";

/** Every tree node's ratios, before the cycle (held GPUs, projected ratio) and after its plan. */
export function summarizeRatios(
  tree: FairTree,
  heldAtStart: readonly number[],
  projectedAtStart: readonly number[],
): TreeNodeRatio[] {
  const ratios: TreeNodeRatio[] = [];
  for (let i = 0; i < tree.size; i++) {
    ratios.push({
      treeNodeId: tree.ids[i]!,
      name: tree.names[i]!,
      parentId: tree.parent[i]! >= 0 ? tree.ids[tree.parent[i]!]! : null,
      effectiveAllocation: tree.effectiveAllocation[i]!,
      usageGpuSeconds: tree.usage[i]!,
      entitlementGpuSeconds: tree.entitlement[i]!,
      ratio: tree.ratio(i),
      heldGpus: heldAtStart[i]!,
      projectedRatio: projectedAtStart[i]!,
      projectedRatioAfter: tree.projectedRatio(i),
    });
  }
  return ratios;
}

/** Counts for CycleStats that follow from the plan and the nodes. */
export function countPlan(
  plan: readonly PlanOp[],
  board: NodeBoard,
): {
  preempted: number;
  preemptedGpus: number;
  lost: number;
  totalGpus: number;
  schedulableGpus: number;
  schedulableNodes: number;
} {
  let preempted = 0;
  let preemptedGpus = 0;
  let lost = 0;
  for (const op of plan) {
    if (op.op === "PREEMPT") {
      preempted++;
      preemptedGpus += op.gpus;
    } else if (op.op === "LOST") lost++;
  }
  const { totalGpus, schedulableGpus, schedulableNodes } = board;
  return { preempted, preemptedGpus, lost, totalGpus, schedulableGpus, schedulableNodes };
}
