import { forecastStarts, type ClusterSnapshot, type ForecastOptions, type PolicyConfig } from "@tranche/scheduler-core";

/**
 * How good the core's start forecast is (issue 14): for every submit and every requeue, the forecast
 * the core made at the first cycle that saw the job pending, against the start that followed. One
 * forecastStarts per cycle covers every job that waits for one.
 */
export interface ForecastReport {
  /** Starts that had a forecast with a time. */
  jobs: number;
  /** Starts whose forecast was unknown (null, e.g. waiting for jobs with no max runtime). */
  unknown: number;
  medianAbsErrorS: number | null;
  p90AbsErrorS: number | null;
  /** Share of starts whose forecast wait is within a factor 2 of the actual wait (both under a minute count as within). */
  withinFactor2: number | null;
}

export class ForecastMeter {
  private readonly wanted = new Set<string>();
  private readonly made = new Map<string, { madeAt: number; at: number | null }>();
  private readonly errors: number[] = [];
  private within = 0;
  private unknown = 0;

  constructor(private readonly options: ForecastOptions) {}

  /** A job entered the queue (submit or requeue): its next cycle forecasts it. */
  queued(jobId: string): void {
    this.wanted.add(jobId);
    this.made.delete(jobId);
  }

  /** Before a cycle on `snapshot`: forecast every job that waits for one. */
  beforeCycle(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): void {
    if (this.wanted.size === 0 || !snapshot.pending.some((p) => this.wanted.has(p.id))) return;
    const { starts } = forecastStarts(snapshot, policy, now, this.options);
    for (const s of starts) if (this.wanted.delete(s.jobId)) this.made.set(s.jobId, { madeAt: now, at: s.at });
  }

  started(jobId: string, at: number): void {
    this.wanted.delete(jobId);
    const f = this.made.get(jobId);
    if (!f) return;
    this.made.delete(jobId);
    if (f.at === null) {
      this.unknown++;
      return;
    }
    this.errors.push(Math.abs(f.at - at));
    const predicted = f.at - f.madeAt;
    const actual = at - f.madeAt;
    if ((predicted < 60 && actual < 60) || (predicted <= 2 * actual && actual <= 2 * predicted)) this.within++;
  }

  report(): ForecastReport {
    const e = [...this.errors].sort((a, b) => a - b);
    const q = (p: number): number | null => (e.length === 0 ? null : e[Math.min(e.length - 1, Math.floor(p * e.length))]!);
    return {
      jobs: e.length,
      unknown: this.unknown,
      medianAbsErrorS: q(0.5),
      p90AbsErrorS: q(0.9),
      withinFactor2: e.length === 0 ? null : Math.round((this.within / e.length) * 1000) / 1000,
    };
  }
}
