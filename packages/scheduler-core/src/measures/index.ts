/** SPEC §4 measures: pure functions shared by the simulator, the worker and the UI. */
export type * from "./types";
export { SEGMENT_END_REASONS } from "./types";
export { percentiles } from "./percentiles";
export {
  computeAvailability,
  computeOccupancy,
  computeDelivery,
  computeQueueWaits,
  computePreemptions,
  computeFragmentation,
  computeMeasures,
  type MeasuresInput,
} from "./compute-measures";
export { sampleSnapshot, isHealthyCapacity, type StateSample, type BudgetSample } from "./sample-state";
export { HourlyAccumulator } from "./hourly-accumulator";
export { flagSquatting, type UtilizationSample, type SquattingOptions, type SquattingFlag } from "./flag-squatting";
