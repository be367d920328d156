/**
 * One simulation run: scenario -> policy cycles in virtual time -> report. The policies are the
 * core's: `fairshare` is runCycle (what the worker runs; here a scheduler per cluster that keeps its
 * working state, same results), `priority` and `fifo` the same cycle under a baseline's rule set.
 */
import { renameSync, rmSync } from "node:fs";
import {
  createScheduler,
  FAIRSHARE,
  FIFO,
  PRIORITY,
  resolvePolicy,
  type PolicyConfig,
  type RuleSet,
  type Scheduler,
} from "@tranche/scheduler-core";
import { simulate, type NewCycle } from "./engine.js";
import { createEventSink, type EventSink } from "./events-log.js";
import { buildReport, type Report } from "./report.js";
import { ForecastMeter } from "./forecast-meter.js";
import { loadScenarioFile } from "./scenario.js";
import type { Scenario } from "./types.js";

export const POLICY_NAMES = ["fairshare", "priority", "fifo"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** The core's cycle under `rules` for one cluster, keeping its working state between that cluster's cycles. */
function keptRunCycle(rules: RuleSet): NewCycle {
  return () => {
    let scheduler: Scheduler | null = null;
    return (snapshot, policy, now) => {
      if (scheduler === null || scheduler.policy !== policy) scheduler = createScheduler(policy, rules);
      return scheduler.runCycle(snapshot, now);
    };
  };
}

/** Each policy's cycle function for one cluster (see NewCycle): the core's session under its rule set. */
export const POLICIES: Readonly<Record<PolicyName, NewCycle>> = {
  fairshare: keptRunCycle(FAIRSHARE),
  priority: keptRunCycle(PRIORITY),
  fifo: keptRunCycle(FIFO),
};

/** The core's PolicyConfig from the scenario's SPEC knobs (the rest at the core's defaults). */
export function policyConfig(s: Scenario): PolicyConfig {
  const p = s.policy;
  return resolvePolicy({
    lookbackWindow: p.lookbackWindow,
    projectionHorizon: p.projectionHorizon,
    preemptionMargin: p.preemptionMargin,
    maxMinRuntime: p.maxMinRuntime,
    debugMaxGpus: p.debugMaxGpus,
    debugMaxGpusPerUser: p.debugMaxGpusPerUser,
    gracePeriod: p.gracePeriod,
    unallocatedGracePeriod: p.unallocatedGracePeriod,
    debugReserve: p.debugReserve,
    debugVictimMaxCost: p.debugVictimMaxCost,
    heartbeatTimeout: p.heartbeatTimeout,
    // Simulated nodes run no processes to fence: a silent node is DOWN at the timeout itself.
    fenceGrace: 0,
  });
}

/** The forecast the simulator measures: the worker's bounds (apps/worker/src/forecast.ts defaults). */
export const FORECAST_SIM_OPTIONS = { maxJobs: 500, maxSteps: 40 } as const;

export interface RunOptions {
  readonly policy: PolicyName;
  /** Write the events JSONL here (via a temporary file, renamed when the run succeeds). */
  readonly eventsPath?: string | undefined;
  /** Or collect them in this sink (tests). */
  readonly sink?: EventSink;
  /** Measure the core's start forecast (fairshare only; costly): adds `forecast` to the report. */
  readonly forecast?: boolean;
  /** Start of the wall clock (defaults to now): lets `wallMs` include loading the scenario. */
  readonly startedAt?: number;
}

export function runScenario(scenario: Scenario, opts: RunOptions): Report {
  const t0 = opts.startedAt ?? performance.now();
  const tmp = opts.eventsPath ? `${opts.eventsPath}.partial` : undefined;
  const sink = opts.sink ?? createEventSink(tmp);
  try {
    const policy = policyConfig(scenario);
    if (opts.forecast && opts.policy !== "fairshare")
      throw new Error("the start forecast is the fairshare core's: use --policy fairshare");
    const meter = opts.forecast ? new ForecastMeter(FORECAST_SIM_OPTIONS) : undefined;
    const out = simulate(scenario, { cycle: POLICIES[opts.policy], policy, sink, forecast: meter });
    sink.close();
    if (tmp && opts.eventsPath) renameSync(tmp, opts.eventsPath);
    const report = buildReport(opts.policy, scenario, out, sink.count, performance.now() - t0);
    return meter ? { ...report, forecast: meter.report() } : report;
  } catch (e) {
    sink.close();
    if (tmp) rmSync(tmp, { force: true });
    throw e;
  }
}

export function runScenarioFile(path: string, opts: RunOptions): Report {
  const t0 = performance.now();
  const scenario = loadScenarioFile(path);
  return runScenario(scenario, { ...opts, startedAt: t0 });
}
