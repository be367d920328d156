import { countPlan, summarizeRatios } from "../summarize-cycle";
import type { CycleResult } from "../types";
import { explainBlocked } from "./explanations";
import type { CycleSession } from "./session";

/** The cycle's result: plan, order, reasons (explanations.ts), ratios before and after, stats. */
export function summarize(s: CycleSession): CycleResult {
  const { board, snapshot, plan, reservations } = s;
  const { pending, blockedAllocated } = explainBlocked(s);
  const ratios = summarizeRatios(s.tree, s.heldAtStart, s.projectedAtStart);
  const counts = countPlan(plan, board);
  return {
    now: s.now,
    clusterId: snapshot.cluster.id,
    plan,
    order: s.order,
    pending,
    ratios,
    reservations: reservations.toResult(),
    stats: {
      nodes: board.count,
      schedulableNodes: counts.schedulableNodes,
      totalGpus: counts.totalGpus,
      schedulableGpus: counts.schedulableGpus,
      idleGpusAfter: board.totalFree(),
      running: snapshot.running.length,
      pending: snapshot.pending.length,
      started: s.started,
      startedGpus: s.startedGpus,
      preempted: counts.preempted,
      preemptedGpus: counts.preemptedGpus,
      lost: counts.lost,
      killed: s.killed,
      reservations: reservations.length,
      blockedAllocated,
      preemptionSearches: s.preemptionSearches,
    },
  };
}
