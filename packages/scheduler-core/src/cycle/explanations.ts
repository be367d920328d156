import { PendingExplainer } from "../explain-pending";
import { PendingReasons } from "../pending-reasons";
import { StartEstimator } from "../plan-reservations";
import type { PendingReason } from "../types";
import type { CycleSession } from "./session";

/**
 * R10 at the end of the cycle: every reason gets its sentence (explain-pending.ts), and the ones that
 * asked for it an earliest-start estimate from the final board (plan-reservations.ts). Jobs started in
 * the retry pass have no reason. Returns the reasons and how many allocated jobs stay blocked.
 *
 * The estimates read the board, so they are made now; the reason objects and their sentences only
 * read the drafts' numbers, the cycle's tree paths and the jobs' ids and user names, so they are
 * built when the result's reasons are first read (PendingReasons): the same reasons, paid for only by
 * a caller that reads them.
 */
export function explainBlocked(s: CycleSession): { pending: PendingReasons; blockedAllocated: number } {
  const { reasons, tree, now } = s;
  const estimator = new StartEstimator(s.board);
  const constraints = s.reservations.constraints;
  for (const k of reasons.estimated) {
    if (reasons.started[k]) continue;
    // A job with node lists waits only for the nodes it may use.
    const entry = reasons.entryOf(k);
    const mask = entry !== null && entry.constrained ? constraints.maskOf(entry) : null;
    reasons.earliest.set(k, estimator.earliest(reasons.gpusOf(k), mask));
  }
  /** Index in `reasons` of each output reason (jobs started in the retry pass have none). */
  const drafts: number[] = [];
  // Deferred reasons (closed-lane.ts, baselines/waiting-notes.ts): written before the ids are listed.
  let deferred = s.takeDeferred();
  const count = reasons.length - reasons.startedCount + (deferred === null ? 0 : deferred.count);
  // Not a record keyed by id: 10,000 fresh id strings as object keys are each internalised, which
  // was half of this function's own time in a profile (see PendingReasons). Listed when first read.
  const listIds = (): string[] => {
    deferred?.write();
    deferred = null;
    const ids: string[] = [];
    for (let k = 0; k < reasons.length; k++) {
      if (reasons.started[k]) continue;
      ids.push(reasons.jobOf(k).id);
      drafts.push(k);
    }
    return ids;
  };
  const pendingReasons: PendingReason[] = [];
  const nodeSize = s.nodeSize; // the board lives on into the next cycle of a kept scheduler
  const ratioWindow = { lookbackWindow: s.policy.lookbackWindow, projectionHorizon: s.policy.projectionHorizon };
  // Written when first read (after the ids). An unnamed closure: tsx (keepNames) wraps every named
  // one it makes, once per cycle here.
  const writeSentences = () => {
    const explainer = new PendingExplainer(nodeSize, ratioWindow);
    for (let i = 0; i < drafts.length; i++) {
      const k = drafts[i]!;
      const job = reasons.jobOf(k);
      const entry = reasons.entryOf(k);
      const r = reasons.reason(k);
      // Jobs outside the order (held, waiting on a dependency) have no entry: their budget by its id.
      const b = entry ? entry.budget : tree.indexOf(job.budgetId);
      r.sentence = explainer.sentence(
        r.code,
        b === undefined ? job.budgetId : tree.paths[b]!,
        job.userName ?? job.userId,
        now,
        r.details,
        job.id,
      );
      pendingReasons.push(r);
    }
  };
  const pending = new PendingReasons([], pendingReasons, writeSentences, listIds, count);
  return { pending, blockedAllocated: reasons.blockedAllocated };
}
