import { validateJobContractOn, type ClusterShape } from "../contract";
import { laneOf, pendingEntry } from "../order-pending";
import { dependencyHold } from "./job-rules";
import type { CycleSession } from "./session";

/**
 * Which pending jobs take part (R10's first reasons): a HELD job is not ordered; a job whose
 * budget is unknown or not a leaf, or whose contract can never fit this cluster, is
 * INVALID_CONTRACT; a job whose dependencies are not met waits (DEPENDENCY, or
 * DEPENDENCY_NEVER_SATISFIED: job-rules.ts). Every other job gets its lane (R5 debug, allocated,
 * R3 unallocated) and an entry in `s.entries`, which the rule set orders in phase 6 (fairshare: the
 * fair-tree queues, R2, sorted within each budget with an id tie-break; baselines: one global
 * order). Input order does not matter: the unordered reasons are sorted by id here. The session's
 * admission holds the entries of jobs admitted by earlier cycles that still hold (kept-admission.ts).
 */
export function admitPending(s: CycleSession, shape: ClusterShape): void {
  const { snapshot, tree, policy, reasons, admission: kept } = s;
  const largestFree = s.board.largestFree();
  const ratioOf = (budget: number): number => (budget >= 0 ? tree.projectedRatio(budget) : Infinity);
  for (let k = 0; k < snapshot.pending.length; k++) {
    const job = snapshot.pending[k]!;
    const known = kept.entryOf(job, tree);
    if (known !== null) {
      s.entries.push(known);
      continue;
    }
    const budget = tree.indexOf(job.budgetId) ?? -1;
    if (job.held) {
      reasons.push(null, job, "HELD", null, ratioOf(budget), largestFree, null, false);
      continue;
    }
    let problem: string | null = null;
    if (budget < 0) problem = `budget ${job.budgetId} is not in this cluster's budget tree`;
    else if (!tree.isLeaf(budget)) problem = `${tree.paths[budget]} is not a budget (a leaf of the tree)`;
    else {
      const v = validateJobContractOn(job, shape, policy, snapshot.cluster);
      if (!v.ok) problem = v.errors.join("; ");
    }
    if (problem !== null) {
      reasons.push(null, job, "INVALID_CONTRACT", null, ratioOf(budget), largestFree, { problem }, false);
      continue;
    }
    const hold = dependencyHold(job.dependencies);
    if (hold !== null) {
      reasons.push(null, job, hold.code, null, ratioOf(budget), largestFree, { dependencies: hold.dependencies }, false);
      continue;
    }
    const ent = tree.hasEntitlement(budget);
    const entry = pendingEntry(job, budget, laneOf(job, ent, policy));
    s.entries.push(entry);
    kept.noteNew(entry);
    if (!job.dependencies || job.dependencies.length === 0) kept.keep(job, entry, ent);
  }
  kept.finish(snapshot.pending);
  reasons.sortById();
}
