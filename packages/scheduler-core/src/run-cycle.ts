import { clusterShape } from "./contract";
import { admitPending } from "./cycle/admit-pending";
import { drainNodes } from "./cycle/drains";
import { holdRunning } from "./cycle/hold-running";
import { stopLostAndExpired } from "./cycle/lost-and-expired";
import { FAIRSHARE, type RuleSet } from "./cycle/rule-set";
import { CycleSession } from "./cycle/session";
import { summarize } from "./cycle/summary";
import { FairTree, treeShape } from "./fair-tree";
import { KeptAdmission } from "./kept-admission";
import { nodeOrder } from "./node-order";
import { planNodeStates } from "./plan-drains";
import { hasPlannedDrain } from "./planned-drains";
import type { ClusterSnapshot, CycleResult, NodeState, PolicyConfig } from "./types";
import { WorkingMemory } from "./working-memory";
import { loadWorkingState } from "./working-state";

/**
 * One scheduling cycle for one cluster (SPEC R1-R11). Pure and stateless: the same snapshot, policy
 * and `now` give the same result, whatever the order of the input arrays. A caller that runs every
 * cycle of a cluster can keep the working state between them with createScheduler (same results).
 */
export function runCycle(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  return runCycleWith(new WorkingMemory(), snapshot, policy, now, FAIRSHARE);
}

/**
 * The cycle's phases, each in its own file (docs/scheduler-core.md walks them):
 *
 *  1. node transitions: silent -> DOWN (R9), unhealthy or plan due -> DRAINING (R8)  plan-drains.ts
 *  2. load the board and the running jobs; held GPUs per budget (R2)        working-state.ts, cycle/hold-running.ts
 *  3. jobs on DOWN nodes LOST (R9), jobs past maxRuntime KILLed             cycle/lost-and-expired.ts
 *  4. drains: preempt what may leave, an empty DRAINING node -> REPAIR (R8) cycle/drains.ts
 *  5. admit pending jobs: HELD, INVALID_CONTRACT, lanes, fair-tree queues   cycle/admit-pending.ts
 *  6. the rule set takes the pending jobs (cycle/rule-set.ts). fairshare:    cycle/lanes.ts
 *     the lanes debug (R5), allocated (R2-R4), unallocated (R3), with the   cycle/carried-reservations.ts,
 *     carried reservations (R5/R7), starts and preemptions, reservations    cycle/try-start.ts, cycle/reservations.ts,
 *     and backfill (R7), and each blocked job's reason (R10); before the    cycle/reason-precedence.ts,
 *     unallocated lane, R3's unallocated victims move to free GPUs (R12);   cycle/consolidate.ts;
 *     baselines: one global order with their own may-preempt rule           baselines/take-in-order.ts
 *  7. explanations and summary: sentences, estimates, ratios, stats         cycle/explanations.ts, cycle/summary.ts
 *
 * `memory` holds what an earlier cycle of the same cluster built (tree shape, node order, board);
 * each part is checked before it is used (see WorkingMemory). `rules` is the regime: SPEC's
 * fairshare, or a baseline (baselines/) that changes only protection and phase 6.
 */
export function runCycleWith(
  memory: WorkingMemory,
  snapshot: ClusterSnapshot,
  policy: PolicyConfig,
  now: number,
  rules: RuleSet,
): CycleResult {
  const shape = (memory.treeShape = treeShape(snapshot.tree, memory.treeShape));
  const order = (memory.nodeOrder = nodeOrder(snapshot.nodes, memory.nodeOrder));
  const tree = new FairTree(snapshot.tree, policy.projectionHorizon, shape.shape);
  const { ops: nodeOps, states } = planNodeStates(snapshot.nodes, policy, now, order);
  tree.capacity = healthyGpus(snapshot, states);
  const working = loadWorkingState(snapshot, states, tree, policy, now, memory, order, rules);
  let finished = false;
  try {
    const shapeOfCluster = clusterShape(snapshot.nodes);
    // A planned drain makes a job's entry depend on the time (planned-drains.ts): such a cycle admits
    // every job afresh and keeps nothing of it, so no entry outlives the time it was made for.
    const planned = hasPlannedDrain(snapshot.nodes, now);
    const admission = KeptAdmission.forCycle(planned ? null : memory.admission, tree, shapeOfCluster, policy, snapshot);
    memory.admission = planned ? null : admission;
    const s = new CycleSession(
      snapshot,
      policy,
      now,
      tree,
      working.board,
      working.jobs,
      working.totals,
      nodeOps,
      rules,
      admission,
    );
    s.reservations.rememberFailures = memory.rememberFailedReservations;
    s.deferReasons = memory.deferReasons;
    holdRunning(s);
    stopLostAndExpired(s);
    drainNodes(s);
    admitPending(s, shapeOfCluster);
    rules.takePending(s, memory.shareBlockedOutcomes);
    admission.rememberHolders(s.reservations.list.map((r) => r.holder));
    const result = summarize(s);
    memory.deferredJobs = s.deferredCount;
    memory.closedTailJobs = s.closedTailJobs;
    memory.quietRunJobs = s.quietRunJobs;
    finished = true;
    return result;
  } finally {
    working.finish(finished);
  }
}

/** Healthy capacity (SPEC §2): GPUs of nodes neither in REPAIR nor DOWN after this cycle's transitions. */
function healthyGpus(snapshot: ClusterSnapshot, states: ReadonlyMap<string, NodeState>): number {
  let gpus = 0;
  for (const n of snapshot.nodes) {
    const state = states.get(n.id) ?? n.state;
    if (state !== "REPAIR" && state !== "DOWN") gpus += n.gpuCount;
  }
  return gpus;
}
