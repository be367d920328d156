import { NEVER, type RuleSet } from "../cycle/rule-set";
import { compareEntries, LANE_INDEX } from "../order-pending";
import type { CycleSession } from "../cycle/session";
import { takeInOrder, type BaselineRules } from "./take-in-order";

/**
 * `priority`: the regime Tranche replaces (SPEC §1), static priorities with per-team caps.
 *   - one global order: job priority (higher first), then original submit time, then id;
 *   - a job that asks for protection (minRuntime > 0, budget with entitlement) runs NOT PREEMPTIBLE
 *     while its team (leaf budget) holds no more such GPUs than its cap (effective allocation x the
 *     schedulable GPUs), charged and protected until it ends (maxRuntime, or never); beyond the cap,
 *     and every other job, runs preemptible (unallocated);
 *   - a preemptible run is preempted (reason PRIORITY) for a job that outranks it: one that will run
 *     not preemptible outranks every preemptible run, any other needs a strictly higher priority;
 *   - drains wait for not-preemptible runs to end (the manual-maintenance pathology).
 */
const UNALLOCATED = LANE_INDEX.UNALLOCATED;

const rules: BaselineRules = {
  name: "priority",
  // Priority, then original submit time, then id: the queue order inside a budget (R2), over the whole cluster.
  compare: compareEntries,
  chargedIn(s: CycleSession) {
    const { board, tree } = s;
    let gpus = 0;
    for (let n = 0; n < board.count; n++) if (board.schedulable[n]) gpus += board.nodes[n]!.gpuCount;
    // tree.held: the charged GPUs each budget holds, moved by every start and stop of this cycle.
    return (budget, lane, g) =>
      lane !== UNALLOCATED && tree.held[budget]! + g <= Math.floor(tree.effectiveAllocation[budget]! * gpus);
  },
  mayPreempt: (v, e, charged) => charged || v.job.priority < e.priority,
};

export const PRIORITY: RuleSet = {
  name: "priority",
  protectedUntil: () => NEVER,
  takePending: (s) => takeInOrder(s, rules),
};
