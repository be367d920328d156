import type { NodeBoard } from "./cluster-state";
import { isAllocated, isDebugLane } from "./contract";
import type { RuleSet } from "./cycle/rule-set";
import type { FairTree } from "./fair-tree";
import type { JobState } from "./job-state";
import type { PolicyConfig, RunningJob } from "./types";

/** A running job's state as a fresh load makes it. */
export function jobState(
  job: RunningJob,
  tree: FairTree,
  board: NodeBoard,
  policy: PolicyConfig,
  now: number,
  rules: RuleSet,
): JobState {
  const js: JobState = {
    job,
    budget: tree.indexOf(job.budgetId) ?? -1,
    charged: false,
    debug: false,
    protectedUntil: 0,
    maxEnd: 0,
    stopping: false,
    exitBy: 0,
    isNew: false,
    gone: false,
    slots: [],
    schedulableGpus: 0,
  };
  setFields(js, tree, policy, now, rules);
  for (let k = 0; k < job.placement.length; k++) {
    const p = job.placement[k]!;
    const node = board.indexOf(p.nodeId);
    if (node === undefined) continue;
    const count = board.nodes[node]!.gpuCount;
    // The snapshot's own array when every index is valid (the usual case; the core never mutates it).
    const given = p.gpuIndexes;
    let valid = true;
    for (let i = 0; i < given.length && valid; i++) {
      const g = given[i]!;
      valid = Number.isInteger(g) && g >= 0 && g < count;
    }
    const slot = { node, gpus: valid ? given : given.filter((g) => Number.isInteger(g) && g >= 0 && g < count) };
    // A one-element literal, not a push (a push reserves room for 17: ~150 bytes per running job a cycle).
    if (js.slots.length === 0) js.slots = [slot];
    else js.slots.push(slot);
  }
  if (js.slots.length > 1) js.slots.sort((a, b) => a.node - b.node);
  js.schedulableGpus = board.schedulableGpusOf(js.slots);
  return js;
}

/** The fields that depend on the cycle (time, entitlement, policy) and on what the job reports. */
function setFields(js: JobState, tree: FairTree, policy: PolicyConfig, now: number, rules: RuleSet): void {
  const job = js.job;
  const budget = js.budget;
  const charged = job.charged ?? (budget >= 0 && isAllocated(job, tree.hasEntitlement(budget)));
  js.charged = charged;
  js.debug = charged && isDebugLane(job, policy);
  js.protectedUntil = charged ? rules.protectedUntil(job, policy) : job.startedAt;
  js.maxEnd = job.maxRuntime === null ? Infinity : job.startedAt + job.maxRuntime;
  js.stopping = Boolean(job.stopping);
  js.exitBy = job.stopping ? job.stopping.graceUntil : now;
  js.isNew = false;
  js.gone = false;
}
