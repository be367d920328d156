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
 * that part, never a wrong answer):
 * - one scheduler per cluster, its cycles in time order;
 * - `tree`: the same array every cycle, the same node objects, usage and entitlement updated in
 *   place; ids, parents, names and allocations unchanged (a change rebuilds the shape);
 * - `nodes`: the same array, the same node objects in the same places, ids and names unchanged (a
 *   change rebuilds the order); the board is kept only while every node is READY or CORDONED,
 *   healthy and unchanged in state, health and GPU count;
 * - `running`: the same array every cycle, kept in job id order and changed in place (jobs added and
 *   removed); a job's budget and placement never edited in place (a job that moves is a new object);
 *   other fields (stopping, charged, times) may change and are read every cycle. The board is kept
 *   from the second cycle that passes the same array; a list out of id order, a budget edited in
 *   place, or a cycle that threw loads afresh. A kept job's placement is frozen (its arrays and
 *   entries): an edit in place throws where it is made, and the job stays where it was.
 * - `pending`: any array; passed again as the same array (changed in place), each job object keeps
 *   what admission made of it (budget, lane, contract checked) while the fields admission read and
 *   the budget's entitlement are unchanged (kept-admission.ts);
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
