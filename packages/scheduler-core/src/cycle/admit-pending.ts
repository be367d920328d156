import { validateJobContractOn, type ClusterShape } from "../contract";
import { laneOf, pendingEntry, type PendingEntry } from "../order-pending";
import { drainSpan } from "../planned-drains";
import type { PendingJob, PendingReasonCode } from "../types";
import { dependencyHold } from "./job-rules";
import type { ReasonExtras } from "./reason-drafts";
import type { CycleSession } from "./session";

/**
 * Which pending jobs take part (R10's first reasons): a HELD job is not ordered; a job whose
 * budget is unknown or not a leaf, or whose contract can never fit this cluster, is
 * INVALID_CONTRACT; a job whose dependencies are not met waits (DEPENDENCY, or
 * DEPENDENCY_NEVER_SATISFIED: job-rules.ts). Every other job gets its lane (R5 debug, allocated,
 * R3 unallocated) and an entry in `s.entries`, which the rule set orders in phase 6 (fairshare: the
 * fair-tree queues, R2, sorted within each budget with an id tie-break; baselines: one global
 * order). Input order does not matter: the unordered reasons are sorted by id here. The session's
 * admission holds the entries of jobs admitted by earlier cycles that still hold (kept-admission.ts);
 * with the caller's backlog (pending-backlog.ts) only the jobs it added since the last cycle and the
 * ones never kept are admitted here, and the kept entries stand in queue order.
 */
export function admitPending(s: CycleSession, shape: ClusterShape): void {
  const { snapshot, admission: kept } = s;
  const fresh = kept.journalJobs();
  if (fresh !== null) {
    // The caller's backlog said what changed (pending-backlog.ts): the kept entries stand, in queue order.
    const loose: PendingEntry[] = [];
    for (const job of fresh) {
      const entry = admitOne(s, shape, job);
      if (entry === null || entry.admitted === null) kept.stayLoose(job);
      if (entry !== null && entry.admitted === null) loose.push(entry);
    }
    s.entriesInQueueOrder = loose.length === 0;
    s.entries = loose.length === 0 ? kept.keptEntries() : kept.keptEntries().concat(loose);
  } else {
    const entries: PendingEntry[] = [];
    for (let k = 0; k < snapshot.pending.length; k++) {
      const job = snapshot.pending[k]!;
      const known = kept.entryOf(job, s.tree);
      if (known !== null) entries.push(known);
      else {
        const entry = admitOne(s, shape, job);
        if (entry !== null) entries.push(entry);
      }
    }
    s.entries = entries;
  }
  kept.finish(snapshot.pending);
  s.reasons.sortById();
}

/** A job not admitted with a kept entry: its reason if it takes no part, else its new entry (kept when it can be). */
function admitOne(s: CycleSession, shape: ClusterShape, job: PendingJob): PendingEntry | null {
  const { snapshot, tree, policy, admission: kept } = s;
  const budget = tree.indexOf(job.budgetId) ?? -1;
  // Why it takes no part: read only for such a job (a backlog's first cycle admits thousands that do).
  const unordered = (code: PendingReasonCode, extras: ReasonExtras | null): null => {
    const ratio = budget >= 0 ? tree.projectedRatio(budget) : Infinity;
    s.reasons.push(null, job, code, null, ratio, s.board.largestFree(), extras, false);
    return null;
  };
  if (job.held)
    return unordered("HELD", job.hold ? { heldByName: job.hold.byName, heldByRole: job.hold.byRole, heldAt: job.hold.at } : null);
  let problem: string | null = null;
  if (budget < 0) problem = `budget ${job.budgetId} is not in this cluster's budget tree`;
  else if (!tree.isLeaf(budget)) problem = `${tree.paths[budget]} is not a budget (a leaf of the tree)`;
  else {
    const v = validateJobContractOn(job, shape, policy, snapshot.cluster);
    if (!v.ok) problem = v.errors.join("; ");
  }
  if (problem !== null) return unordered("INVALID_CONTRACT", { problem });
  const hold = dependencyHold(job.dependencies);
  if (hold !== null) return unordered(hold.code, { dependencies: hold.dependencies });
  const ent = tree.hasEntitlement(budget);
  const lane = laneOf(job, ent, policy);
  // A start waits at most the longest grace for leaving jobs: a job whose span, counted from then, could
  // cross a planned drain has outcomes of its own (try-start.ts crossesPlan).
  const span = drainSpan(lane, job);
  const entry = pendingEntry(job, budget, lane, span > 0 && s.reservations.constraints.crossedAny(span + policy.maxGracePeriod));
  kept.noteNew(entry);
  if (!job.dependencies || job.dependencies.length === 0) kept.keep(job, entry, ent);
  return entry;
}
