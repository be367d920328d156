import { PendingExplainer } from "../explain-pending";
import { PendingReasons } from "../pending-reasons";
import { StartEstimator } from "../plan-reservations";
import type { PendingReason } from "../types";
import type { CycleSession } from "./session";

/**
 * R10 at the end of the cycle: every reason gets its sentence (explain-pending.ts), and the ones that
 * asked for it an earliest-start estimate from the final board (plan-reservations.ts). Jobs started in
 * the retry pass have no reason. Returns the reasons and how many allocated jobs stay blocked.
 */
export function explainBlocked(s: CycleSession): { pending: PendingReasons; blockedAllocated: number } {
  const { reasons, tree, now } = s;
  const estimator = new StartEstimator(s.board);
  const explainer = new PendingExplainer(s.nodeSize);
  // Not a record keyed by id: 10,000 fresh id strings as object keys are each internalised, which
  // was half of this function's own time in a profile (see PendingReasons).
  const pendingIds: string[] = [];
  const pendingReasons: PendingReason[] = [];
  let blockedAllocated = 0;
  for (let k = 0; k < reasons.length; k++) {
    const r = reasons.out[k];
    if (!r) continue; // started in the retry pass
    const job = reasons.job[k]!;
    const entry = reasons.entry[k]!;
    if (reasons.estimate[k]) r.details.earliestStart = estimator.earliest(job.gpus);
    if (entry && entry.lane !== "UNALLOCATED") blockedAllocated++;
    r.sentence = explainer.sentence(
      r.code,
      entry ? tree.paths[entry.budget]! : job.budgetId,
      job.userName ?? job.userId,
      now,
      r.details,
    );
    pendingIds.push(job.id);
    pendingReasons.push(r);
  }
  return { pending: new PendingReasons(pendingIds, pendingReasons), blockedAllocated };
}
