/** SPEC §4 measures: pure functions shared by the simulator, the worker and the UI. */
export type * from "./types";
export { SEGMENT_END_REASONS } from "./types";
export { percentiles } from "./percentiles";
export {
  computeAvailability,
  computeOccupancy,
  computeDelivery,
  computeQueueWaits,
  computeStillWaiting,
  computePreemptions,
  computeFragmentation,
  computeMeasures,
  type MeasuresInput,
} from "./compute-measures";
export { isHealthyCapacity } from "./healthy-capacity";
export { HourlyAccumulator, HOUR } from "./hourly-accumulator";
export {
  squattingSince,
  squattingAfterReport,
  isSquatting,
  SQUATTING_BUSY_PERCENT,
  SQUATTING_WINDOW,
  type SquattingState,
} from "./flag-squatting";
