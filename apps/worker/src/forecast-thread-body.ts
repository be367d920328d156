import { parentPort } from "node:worker_threads";
import { forecastStarts, type ClusterSnapshot, type ForecastOptions, type PolicyConfig } from "@tranche/scheduler-core";

// Runs one start forecast (the core's forecastStarts, pure) on its own thread and posts the result:
// a forecast replays many cycles, seconds on a large cluster, and must not hold the worker's loop.

export interface ForecastRequest {
  snapshot: ClusterSnapshot;
  policy: PolicyConfig;
  now: number;
  options: ForecastOptions;
}

parentPort?.once("message", (m: ForecastRequest) => {
  try {
    parentPort!.postMessage({ ok: true, starts: forecastStarts(m.snapshot, m.policy, m.now, m.options).starts });
  } catch (e) {
    parentPort!.postMessage({ ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});
