/** Baseline policies (`priority`, `fifo`) for comparisons in the simulator: same shape as runCycle. */
export { runPriorityCycle, runFifoCycle, runBaselineCycle, NEVER, type BaselineKind } from "./baseline-cycle";
