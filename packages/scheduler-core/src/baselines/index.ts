import { FIFO } from "./fifo";
import { PRIORITY } from "./priority";
import { runCycleWith } from "../run-cycle";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "../types";
import { WorkingMemory } from "../working-memory";

/**
 * Baseline regimes (`priority`, `fifo`) for comparisons in the simulator: rule sets on the core's
 * cycle session (protection, order, may-preempt), so node transitions, lost jobs, kills at
 * maxRuntime, drains, reasons and speed are the core's. createScheduler(policy, PRIORITY) keeps
 * working state between cycles like the fairshare scheduler.
 */
export { PRIORITY } from "./priority";
export { FIFO } from "./fifo";
export { NEVER, FAIRSHARE, type RuleSet } from "../cycle/rule-set";

export type BaselineKind = "priority" | "fifo";

/** One stateless cycle of a baseline: same input and output as runCycle. */
export function runBaselineCycle(kind: BaselineKind, snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult {
  return runCycleWith(new WorkingMemory(), snapshot, policy, now, kind === "priority" ? PRIORITY : FIFO);
}

export const runPriorityCycle = (snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult =>
  runBaselineCycle("priority", snapshot, policy, now);

export const runFifoCycle = (snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): CycleResult =>
  runBaselineCycle("fifo", snapshot, policy, now);
