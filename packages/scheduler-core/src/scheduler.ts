import { FAIRSHARE, type RuleSet } from "./cycle/rule-set";
import { runCycleWith } from "./run-cycle";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "./types";
import { WorkingMemory } from "./working-memory";

/**
 * A scheduler for one cluster that keeps its working state between cycles: the budget tree's shape,
 * the nodes' order and the node board with the running jobs. Every result is exactly what the
 * stateless runCycle(snapshot, policy, now) gives; keeping only saves rebuilding (about half of a
 * small cycle in the simulator).
 *
 * What a caller does to benefit (each is checked every cycle; a violated one costs a fresh build of
 * that part, or for an edited running job a TypeError where it is edited, never a wrong answer):
 * - one scheduler per cluster, its cycles in time order (a cycle earlier than the last loads afresh);
 * - `tree`: the same array every cycle, the same node objects, usage and entitlement updated in
 *   place; ids, parents, names and allocations unchanged (a change rebuilds the shape);
 * - `nodes`: the same array, the same node objects in the same places, ids and names unchanged (a
 *   change rebuilds the order); the board is kept only while every node is READY or CORDONED,
 *   healthy and unchanged in state, health and GPU count;
 * - `running`: the same array every cycle, kept in job id order and changed in place (jobs added and
 *   removed); a running job object is never edited: a job that starts leaving, moves or changes in
 *   any way is a new object with its id in its place. The scheduler freezes each job it keeps (the
 *   object, its placement, its stopping), so an edit in place throws where it is made (TypeError in
 *   strict code) and leaves the job as it was; it never reads a kept job again, only compares the
 *   list's objects with last cycle's. The board is kept from the second cycle that passes the same
 *   array; a list out of id order, a budget's entitlement appearing or vanishing, or a cycle that
 *   threw loads afresh.
 * - `pending`: any array; passed again as the same array (changed in place, jobs added and removed),
 *   each job object keeps what admission made of it (budget, lane, contract checked) while its
 *   budget's entitlement is unchanged (kept-admission.ts). A pending job object is never edited once
 *   passed: a job that changes (held, released, given a dependency, edited) is a new object in its
 *   place. The scheduler freezes each pending job it keeps, so an edit in place throws where it is
 *   made (TypeError in strict code) and leaves the job as it was. A caller that keeps its pending
 *   jobs in a PendingBacklog (pending-backlog.ts) and passes it as `backlog`, with its `items` as
 *   `pending`, is read for what it added and removed since the last cycle instead of comparing the
 *   arrays (the simulator);
 * - `reservations` are read afresh every cycle and may be any array.
 */
export interface Scheduler {
  readonly policy: PolicyConfig;
  runCycle(snapshot: ClusterSnapshot, now: number): CycleResult;
}

/** `rules`: the regime (fairshare; the simulator's baselines pass PRIORITY or FIFO). */
export function createScheduler(policy: PolicyConfig, rules: RuleSet = FAIRSHARE): Scheduler {
  const memory = new WorkingMemory();
  return {
    policy,
    runCycle: (snapshot, now) => runCycleWith(memory, snapshot, policy, now, rules),
  };
}
