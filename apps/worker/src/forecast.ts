import type { PrismaClient } from "@tranche/db";
import { writeStartForecasts } from "@tranche/domain/runtime";
import type { ClusterSnapshot, ForecastOptions, PolicyConfig, StartForecast } from "@tranche/scheduler-core";
import type { ForecastRequest } from "./forecast-thread-body";
import { ForecastThread } from "./forecast-thread-host";

/**
 * Phase 5 of a cycle, after the commit: the core's start forecast stored on each pending job. A
 * forecast replays many cycles, so it runs at most every `everyMs` per cluster (default a minute) and
 * only for the first `maxJobs` jobs of the order; the others say they are too far back. Best effort:
 * a failure logs and leaves the previous forecast, it never fails the cycle.
 *
 * It never delays a cycle either: the forecast is computed on its own thread (seconds on a large
 * cluster), and the cycle does not wait for it. The result is written by the cluster's next cycle,
 * in that cycle's phase 5, so forecast writes never run beside a cycle's own writes; only waiting
 * jobs are written (a job that started meanwhile keeps none). The thread is the forecaster's own
 * (forecast-thread-host.ts), ended by close().
 */
export interface ForecastConfig {
  /** -1 = never. */
  everyMs: number;
  maxJobs: number;
  maxSteps: number;
}

export const defaultForecastConfig: ForecastConfig = { everyMs: 60_000, maxJobs: 500, maxSteps: 40 };

/** Computes a forecast; the default runs the core's forecastStarts on a worker thread. */
export type ComputeForecast = (request: ForecastRequest) => Promise<StartForecast[]>;
/** Stores a forecast made at `now` on the waiting jobs. */
export type WriteForecast = (starts: readonly StartForecast[], now: number) => Promise<void>;

export class StartForecaster {
  private readonly lastAt = new Map<string, number>();
  /** Clusters whose forecast is being computed. */
  private readonly computing = new Set<string>();
  /** Forecasts computed and not yet written, per cluster. */
  private readonly ready = new Map<string, { starts: StartForecast[]; now: number }>();
  private readonly compute: ComputeForecast;
  private readonly write: WriteForecast;
  /** Its own thread when it computes on one (no `compute` port); closed by close(). */
  private readonly thread: ForecastThread | null;

  constructor(
    prisma: PrismaClient | null,
    private readonly config: ForecastConfig,
    ports: { compute?: ComputeForecast; write?: WriteForecast } = {},
  ) {
    const thread = ports.compute ? null : new ForecastThread();
    this.thread = thread;
    this.compute = ports.compute ?? ((request) => thread!.compute(request));
    this.write = ports.write ?? ((starts, now) => writeStartForecasts(prisma!, starts, now));
  }

  /** Whether this cluster's forecast is due (the caller's clock in ms). */
  due(clusterId: string, nowMs: number): boolean {
    return this.config.everyMs >= 0 && nowMs - (this.lastAt.get(clusterId) ?? -Infinity) >= this.config.everyMs;
  }

  /** Computes and stores a forecast now, waiting for both (tools and tests). */
  async refresh(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number, nowMs: number): Promise<void> {
    this.lastAt.set(snapshot.cluster.id, nowMs);
    await this.write(await this.compute(this.request(snapshot, policy, now)), now);
  }

  /**
   * A cycle's phase 5: stores the forecast computed since the cluster's last cycle, if any, then starts
   * the next one when due and none is being computed, without waiting for it.
   */
  async afterCycle(
    snapshot: ClusterSnapshot,
    policy: PolicyConfig,
    now: number,
    nowMs: number,
    log: (line: string) => void,
  ): Promise<void> {
    const id = snapshot.cluster.id;
    const done = this.ready.get(id);
    if (done) {
      this.ready.delete(id);
      await this.write(done.starts, done.now);
    }
    if (this.computing.has(id) || !this.due(id, nowMs)) return;
    this.lastAt.set(id, nowMs);
    this.computing.add(id);
    this.compute(this.request(snapshot, policy, now))
      .then(
        (starts) => void this.ready.set(id, { starts, now }),
        (e: unknown) => log(`start forecast for cluster ${id.slice(0, 8)} failed: ${e instanceof Error ? e.message : String(e)}`),
      )
      .finally(() => this.computing.delete(id));
  }

  /** Whether its forecast thread is alive (false once closed). */
  get threadRunning(): boolean {
    return this.thread?.running ?? false;
  }

  /** Ends its forecast thread; a forecast still computing fails (logged, as any failed forecast). */
  async close(): Promise<void> {
    await this.thread?.close();
  }

  private request(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number): ForecastRequest {
    const options: ForecastOptions = { maxJobs: this.config.maxJobs, maxSteps: this.config.maxSteps };
    return { snapshot, policy, now, options };
  }
}
