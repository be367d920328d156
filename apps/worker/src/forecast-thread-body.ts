import { parentPort } from "node:worker_threads";
import {
  forecastStarts,
  type ClusterSnapshot,
  type ForecastOptions,
  type PolicyConfig,
  type StartForecast,
} from "@tranche/scheduler-core";

// Runs start forecasts (the core's forecastStarts, pure) on their own thread and posts each result:
// a forecast replays many cycles, seconds on a large cluster, and must not hold the worker's loop.
// The thread lives as long as the worker: loading the TypeScript loader and the core takes longer
// than many forecasts, and a forecast is due every minute for every cluster.

export interface ForecastRequest {
  snapshot: ClusterSnapshot;
  policy: PolicyConfig;
  now: number;
  options: ForecastOptions;
}

/** A request with its id: the one thread serves every cluster's forecasts, one after another. */
export interface ForecastMessage {
  id: number;
  request: ForecastRequest;
}

export type ForecastReply = { id: number; ok: true; starts: StartForecast[] } | { id: number; ok: false; error: string };

parentPort?.on("message", ({ id, request: m }: ForecastMessage) => {
  let reply: ForecastReply;
  try {
    reply = { id, ok: true, starts: forecastStarts(m.snapshot, m.policy, m.now, m.options).starts };
  } catch (e) {
    reply = { id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply);
});
