/**
 * The report JSON (keys exactly as in the README). Every number comes from the core's SPEC §4
 * measure functions applied to what the recorder collected.
 */
import type { ForecastReport } from "./forecast-meter.js";
import { computeMeasures, computeStillWaiting, type Percentiles, type PreemptReasonCode } from "@tranche/scheduler-core";
import type { SimulationOutput } from "./engine.js";
import type { Scenario } from "./types.js";

export interface WaitPercentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface Report {
  policy: string;
  jobs: { submitted: number; completed: number; unfinished: number };
  availability: number | null;
  occupancy: { total: number | null; allocated: number | null; unallocated: number | null };
  delivery: {
    overall: number | null;
    min: number | null;
    budgetsAtLeast95: number;
    budgets: number;
    perBudget: Record<string, number>;
  };
  queueWait: {
    all: WaitPercentiles;
    debug: WaitPercentiles;
    large: WaitPercentiles;
    /**
     * The jobs still waiting at the end, by their waits so far (end - submit or requeue): the percentiles
     * above count starts only, so a job that never started is in none of them.
     */
    stillWaiting: { all: WaitingCount; debug: WaitingCount; large: WaitingCount };
  };
  /**
   * count and gpuHours leave out `moves` (R12 consolidation: restarted at once elsewhere); lostGpuHours
   * counts both. byReason splits count and gpuHours by the preemptions' reason codes.
   */
  preemptions: {
    count: number;
    gpuHours: number;
    moves: number;
    lostGpuHours: number;
    byReason: Partial<Record<PreemptReasonCode, { count: number; gpuHours: number }>>;
  };
  fragmentation: { idleGpuHoursWhileBlocked: number };
  sim: { events: number; wallMs: number };
  /** Only with --forecast: the core's start forecast at submit and requeue against the actual start. */
  forecast?: ForecastReport;
}

export interface WaitingCount extends WaitPercentiles {
  count: number;
}

const wait = (p: Percentiles): WaitPercentiles => ({ p50: p.p50, p90: p.p90, p99: p.p99 });
const waiting = (p: Percentiles): WaitingCount => ({ count: p.count, p50: p.p50, p90: p.p90, p99: p.p99 });

export function buildReport(policy: string, scenario: Scenario, out: SimulationOutput, events: number, wallMs: number): Report {
  const r = out.recorder;
  // The measured window [measureFrom, end): hourly rows from that hour, runs launched and
  // preemptions made in it; what came before is a warm-up (SPEC §4 measures "over any window").
  const from = scenario.simulation.measureFrom;
  const m = computeMeasures({
    clusterIntervals: r.clusterIntervals().filter((i) => i.start >= from),
    budgetIntervals: r.budgetIntervals().filter((i) => i.start >= from),
    segments: from > 0 ? r.segments.filter((s) => s.startedAt >= from) : r.segments,
    preemptions: from > 0 ? r.preemptions.filter((p) => p.at >= from) : r.preemptions,
    largeJobGpus: r.policy.largeJobGpus,
  });
  const still = computeStillWaiting(r.waiting, out.end, r.policy.largeJobGpus);
  const perBudget: Record<string, number> = {};
  for (const b of m.delivery.perBudget) if (b.delivery !== null) perBudget[b.budgetId] = b.delivery;
  return {
    policy,
    jobs: { submitted: scenario.jobs.length, completed: out.completed, unfinished: scenario.jobs.length - out.completed },
    availability: m.availability,
    occupancy: { total: m.occupancy.occupancy, allocated: m.occupancy.allocated, unallocated: m.occupancy.unallocated },
    delivery: {
      overall: m.delivery.delivery,
      min: m.delivery.minDelivery,
      budgetsAtLeast95: m.delivery.budgetsAtLeast95,
      budgets: m.delivery.budgetsOwed,
      perBudget,
    },
    queueWait: {
      all: wait(m.queueWait.all),
      debug: wait(m.queueWait.debug),
      large: wait(m.queueWait.large),
      stillWaiting: { all: waiting(still.all), debug: waiting(still.debug), large: waiting(still.large) },
    },
    preemptions: {
      count: m.preemptions.count,
      gpuHours: m.preemptions.gpuHours,
      moves: m.preemptions.moves,
      lostGpuHours: m.preemptions.lostGpuHours,
      byReason: m.preemptions.byReason,
    },
    fragmentation: { idleGpuHoursWhileBlocked: m.fragmentationGpuSeconds / 3600 },
    sim: { events, wallMs: Math.round(wallMs) },
  };
}
