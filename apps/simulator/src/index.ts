/** @tranche/simulator: replay scenarios through the core's policies in virtual time. */
export {
  runScenario,
  runScenarioFile,
  policyConfig,
  POLICIES,
  POLICY_NAMES,
  FORECAST_SIM_OPTIONS,
  type PolicyName,
  type RunOptions,
} from "./run.js";
export { ForecastMeter, type ForecastReport } from "./forecast-meter.js";
export { simulate, type CycleFn, type NewCycle, type SimulationOutput } from "./engine.js";
export { buildReport, type Report, type WaitingCount } from "./report.js";
export { loadScenarioFile, validateScenario } from "./scenario.js";
export { parseTraceCsv, formatTraceCsv, TRACE_COLUMNS } from "./trace.js";
export { createEventSink, createMemorySink, type SimEvent, type EventSink } from "./events-log.js";
export { importPhilly, importPhillyRows } from "./importers/philly.js";
export { importHelios, importHeliosRows } from "./importers/helios.js";
export { demandRatio } from "./importers/common.js";
export { defaultTracesDir, findRepoRoot } from "./importers/traces-dir.js";
export { parseDuration } from "./duration.js";
export * from "./types.js";
