import type { PrismaClient } from "@tranche/db";
import { clearStartForecasts, writeStartForecasts } from "@tranche/domain/runtime";
import type { ClusterSnapshot, ForecastOptions, PolicyConfig, StartForecast } from "@tranche/scheduler-core";
import type { ForecastRequest } from "./forecast-thread-body";
import { ForecastThread } from "./forecast-thread-host";

/**
 * Phase 5 of a cycle, after the commit: the core's start forecast stored on each pending job. A
 * forecast replays many cycles, so it runs at most every `everyMs` per cluster (default a minute) and
 * only for the first `maxJobs` jobs of the order; the others say they are too far back. Best effort:
 * a failure logs, it never fails the cycle.
 *
 * It never delays a cycle either: the forecast is computed on its own thread (seconds on a large
 * cluster), and the cycle does not wait for it. The result is written by the cluster's next cycle,
 * in that cycle's phase 5, so forecast writes never run beside a cycle's own writes; only waiting
 * jobs are written (a job that started meanwhile keeps none), and only those still at the revision
 * the forecast's snapshot read (one changed, held or released meanwhile keeps none). The thread is the forecaster's own
 * (forecast-thread-host.ts), ended by close().
 *
 * What is stored stays current. Once a refresh is over, the stored forecasts older than it are
 * dropped: all of them when it failed, the rows it skipped when it was stored. A result is dropped,
 * not stored, when this worker ran no cycle of its cluster for longer than the interval (and a
 * minute) while it waited: the worker stalled or lost the lead, jobs have ended since, and another
 * leader may have stored newer forecasts. A refresh still computing that long after it started
 * drops the forecasts older than it as well. So a forecast never stays up for much more than two
 * intervals; a job without one reads "no start forecast yet".
 */
export interface ForecastConfig {
  /** -1 = never. */
  everyMs: number;
  maxJobs: number;
  maxSteps: number;
}

/** A pause in a cluster's cycles, or a refresh, longer than this and the interval makes a forecast stale. */
const PAUSE_MS = 60_000;

export const defaultForecastConfig: ForecastConfig = { everyMs: 60_000, maxJobs: 500, maxSteps: 40 };

/** Computes a forecast; the default runs the core's forecastStarts on a worker thread. */
export type ComputeForecast = (request: ForecastRequest) => Promise<StartForecast[]>;
/**
 * Stores a forecast made at `now` on the waiting jobs, skipping those whose revision is no longer the
 * one its snapshot read (`revisions`: changed, held or released since; writeStartForecasts).
 */
export type WriteForecast = (
  starts: readonly StartForecast[],
  now: number,
  revisions: ReadonlyMap<string, number>,
) => Promise<void>;
/** Drops a cluster's stored forecasts made before `before` (epoch seconds). */
export type ClearForecasts = (clusterId: string, before: number) => Promise<unknown>;

export class StartForecaster {
  /** Per cluster: when the last refresh started (the caller's clock, ms). */
  private readonly lastAt = new Map<string, number>();
  /** Per cluster: the caller's clock at its last cycle, ms (a pause in the cycles makes a result stale). */
  private readonly lastCycleMs = new Map<string, number>();
  /** Clusters whose forecast is being computed: the cycle time it was started for (s). */
  private readonly computing = new Map<string, number>();
  /** Clusters whose overdue refresh already dropped the forecasts older than it. */
  private readonly overdueCleared = new Set<string>();
  /** Refreshes over and not yet settled, per cluster: the forecast, or null when it failed. */
  private readonly ready = new Map<
    string,
    { starts: StartForecast[] | null; now: number; revisions: ReadonlyMap<string, number> }
  >();
  private readonly compute: ComputeForecast;
  private readonly write: WriteForecast;
  private readonly clear: ClearForecasts;
  /** Its own thread when it computes on one (no `compute` port); closed by close(). */
  private readonly thread: ForecastThread | null;

  constructor(
    prisma: PrismaClient | null,
    private readonly config: ForecastConfig,
    ports: { compute?: ComputeForecast; write?: WriteForecast; clear?: ClearForecasts } = {},
  ) {
    const thread = ports.compute ? null : new ForecastThread();
    this.thread = thread;
    this.compute = ports.compute ?? ((request) => thread!.compute(request));
    this.write = ports.write ?? ((starts, now, revisions) => writeStartForecasts(prisma!, starts, now, revisions));
    this.clear = ports.clear ?? ((clusterId, before) => clearStartForecasts(prisma!, clusterId, before));
  }

  /** Whether this cluster's forecast is due (the caller's clock in ms). */
  due(clusterId: string, nowMs: number): boolean {
    return this.config.everyMs >= 0 && nowMs - (this.lastAt.get(clusterId) ?? -Infinity) >= this.config.everyMs;
  }

  /** Computes and stores a forecast now, waiting for both (tools and tests). */
  async refresh(
    snapshot: ClusterSnapshot,
    policy: PolicyConfig,
    now: number,
    nowMs: number,
    revisions: ReadonlyMap<string, number> = new Map(),
  ): Promise<void> {
    this.lastAt.set(snapshot.cluster.id, nowMs);
    await this.write(await this.compute(this.request(snapshot, policy, now)), now, revisions);
  }

  /**
   * A cycle's phase 5: settles the refresh that ended since the cluster's last cycle, if any (stores
   * it, unless its cycles paused meanwhile, and drops what it did not renew), then starts the next one
   * when due and none is being computed, without waiting for it. `revisions`: the snapshot's
   * (CycleInput.revisions); the forecast computed from it is not stored on a job whose revision moved on.
   */
  async afterCycle(
    snapshot: ClusterSnapshot,
    policy: PolicyConfig,
    now: number,
    nowMs: number,
    log: (line: string) => void,
    revisions: ReadonlyMap<string, number> = new Map(),
  ): Promise<void> {
    const id = snapshot.cluster.id;
    const name = snapshot.cluster.name;
    const stale = Math.max(this.config.everyMs, PAUSE_MS);
    const previousCycleMs = this.lastCycleMs.get(id);
    this.lastCycleMs.set(id, nowMs);
    const done = this.ready.get(id);
    if (done) {
      this.ready.delete(id);
      if (done.starts && previousCycleMs !== undefined && nowMs - previousCycleMs > stale)
        log(`start forecast for cluster ${name} dropped: made before a pause in its cycles, so out of date`);
      else if (done.starts) await this.write(done.starts, done.now, done.revisions);
      await this.clear(id, done.now);
    }
    const since = this.computing.get(id);
    if (since !== undefined) {
      if (nowMs - (this.lastAt.get(id) ?? nowMs) >= stale && !this.overdueCleared.has(id)) {
        this.overdueCleared.add(id);
        log(`start forecast for cluster ${name} is taking too long; the older forecasts were dropped`);
        await this.clear(id, since);
      }
      return;
    }
    if (!this.due(id, nowMs)) return;
    this.lastAt.set(id, nowMs);
    this.computing.set(id, now);
    this.overdueCleared.delete(id);
    this.compute(this.request(snapshot, policy, now))
      .then(
        (starts) => void this.ready.set(id, { starts, now, revisions }),
        (e: unknown) => {
          this.ready.set(id, { starts: null, now, revisions });
          log(`start forecast for cluster ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
        },
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
