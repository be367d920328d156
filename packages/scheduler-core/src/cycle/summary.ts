import { countPlan, summarizeRatios } from "../summarize-cycle";
import type { CycleResult } from "../types";
import { explainBlocked } from "./explanations";
import type { OrderList } from "./order-list";
import type { CycleSession } from "./session";

/** Where a result keeps its order until the order is first read: its OrderList, then its ids. */
const ORDER = Symbol("order");

/**
 * The result's `order`: its ids, written when first read (order-list.ts). One accessor shared by
 * every result, defined on each: a getter written into each result's literal (a closure a cycle)
 * made the 40-day replay's scavenges twice as slow and its heap grow to 500-700 MB (--trace-gc).
 */
const ORDER_PROPERTY: PropertyDescriptor = {
  enumerable: true,
  get(this: { [ORDER]: OrderList | string[] }): string[] {
    const kept = this[ORDER];
    return Array.isArray(kept) ? kept : (this[ORDER] = kept.toArray());
  },
};

/** The cycle's result: plan, order, reasons (explanations.ts), ratios before and after, stats. */
export function summarize(s: CycleSession): CycleResult {
  const { board, snapshot, plan, reservations } = s;
  const { pending, blockedAllocated } = explainBlocked(s);
  const ratios = summarizeRatios(s.tree, s.heldAtStart, s.projectedAtStart);
  const counts = countPlan(plan, board);
  // The properties in the same order on every result (one shape): the order after the plan.
  const result = { now: s.now, clusterId: snapshot.cluster.id, plan } as CycleResult;
  Object.defineProperty(result, ORDER, { value: s.order, writable: true });
  Object.defineProperty(result, "order", ORDER_PROPERTY);
  return Object.assign(result, {
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
  });
}
