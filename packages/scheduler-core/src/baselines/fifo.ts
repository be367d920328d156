import { FAIRSHARE, type RuleSet } from "../cycle/rule-set";
import { compareJobIds, LANE_INDEX } from "../order-pending";
import { takeInOrder, type BaselineRules } from "./take-in-order";

/**
 * `fifo`: first come, first served with backfill. One global order by original submit time (then
 * id); no preemption; the first job that waits holds its nodes and later jobs backfill elsewhere.
 * Runs are charged as SPEC §2 allocated occupancy (minRuntime > 0, budget with entitlement) and
 * protected for their minRuntime, so drains wait that long (R8).
 */
const rules: BaselineRules = {
  name: "fifo",
  compare: (a, b) => a.submittedAt - b.submittedAt || compareJobIds(a.id, b.id),
  chargedIn: () => (_budget, lane) => lane !== LANE_INDEX.UNALLOCATED,
  mayPreempt: null,
};

export const FIFO: RuleSet = {
  name: "fifo",
  protectedUntil: FAIRSHARE.protectedUntil,
  takePending: (s) => takeInOrder(s, rules),
};
