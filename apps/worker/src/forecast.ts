import type { PrismaClient } from "@tranche/db";
import { refreshStartForecasts } from "@tranche/domain/runtime";
import type { ClusterSnapshot, PolicyConfig } from "@tranche/scheduler-core";

/**
 * Phase 5 of a cycle, after the commit: the core's start forecast stored on each pending job. A
 * forecast replays many cycles, so it runs at most every `everyMs` per cluster (default a minute) and
 * only for the first `maxJobs` jobs of the order; the others say they are too far back. Best effort:
 * a failure logs and leaves the previous forecast, it never fails the cycle.
 */
export interface ForecastConfig {
  /** -1 = never. */
  everyMs: number;
  maxJobs: number;
  maxSteps: number;
}

export const defaultForecastConfig: ForecastConfig = { everyMs: 60_000, maxJobs: 500, maxSteps: 40 };

export class StartForecaster {
  private readonly lastAt = new Map<string, number>();

  constructor(
    private readonly prisma: PrismaClient,
    private readonly config: ForecastConfig,
  ) {}

  /** Whether this cluster's forecast is due (the caller's clock in ms). */
  due(clusterId: string, nowMs: number): boolean {
    return this.config.everyMs >= 0 && nowMs - (this.lastAt.get(clusterId) ?? -Infinity) >= this.config.everyMs;
  }

  async refresh(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number, nowMs: number): Promise<void> {
    this.lastAt.set(snapshot.cluster.id, nowMs);
    await refreshStartForecasts(this.prisma, snapshot, policy, now, {
      maxJobs: this.config.maxJobs,
      maxSteps: this.config.maxSteps,
    });
  }
}
