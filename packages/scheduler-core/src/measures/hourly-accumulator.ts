import type { StateSample } from "./sample-state";
import type { BudgetInterval, ClusterInterval } from "./types";

/**
 * Turns samples held over [from, to) into per-hour ClusterInterval and BudgetInterval rows (SPEC §4
 * measures are per hour: owed = min(entitlement, demand) must be taken hour by hour). Hours are
 * aligned on multiples of `intervalSeconds` of the caller's clock. Pure state, no I/O.
 */
export class HourlyAccumulator {
  private readonly clusters = new Map<string, ClusterInterval>();
  private readonly budgets = new Map<string, BudgetInterval>();

  constructor(readonly intervalSeconds = 3600) {}

  add(sample: StateSample, from: number, to: number): void {
    let t = from;
    while (t < to) {
      const bucket = Math.floor(t / this.intervalSeconds) * this.intervalSeconds;
      const end = Math.min(to, bucket + this.intervalSeconds);
      this.addWithin(sample, bucket, end - t);
      t = end;
    }
  }

  private addWithin(s: StateSample, bucket: number, dt: number): void {
    const key = `${s.clusterId}\u0000${bucket}`;
    let c = this.clusters.get(key);
    if (!c) {
      c = {
        clusterId: s.clusterId,
        start: bucket,
        end: bucket + this.intervalSeconds,
        totalGpuSeconds: 0,
        healthyGpuSeconds: 0,
        allocatedGpuSeconds: 0,
        unallocatedGpuSeconds: 0,
        fragmentationGpuSeconds: 0,
      };
      this.clusters.set(key, c);
    }
    c.totalGpuSeconds += s.totalGpus * dt;
    c.healthyGpuSeconds += s.healthyGpus * dt;
    c.allocatedGpuSeconds += s.allocatedGpus * dt;
    c.unallocatedGpuSeconds += s.unallocatedGpus * dt;
    if (s.allocatedBlocked) c.fragmentationGpuSeconds += s.idleGpus * dt;
    for (const b of s.budgets) {
      if (b.entitlementGpus === 0 && b.demandGpus === 0 && b.ranGpus === 0) continue;
      const bkey = `${key}\u0000${b.budgetId}`;
      let r = this.budgets.get(bkey);
      if (!r) {
        r = {
          clusterId: s.clusterId,
          budgetId: b.budgetId,
          start: bucket,
          end: bucket + this.intervalSeconds,
          entitlementGpuSeconds: 0,
          demandGpuSeconds: 0,
          ranGpuSeconds: 0,
        };
        this.budgets.set(bkey, r);
      }
      r.entitlementGpuSeconds += b.entitlementGpus * dt;
      r.demandGpuSeconds += b.demandGpus * dt;
      r.ranGpuSeconds += b.ranGpus * dt;
    }
  }

  clusterIntervals(): ClusterInterval[] {
    return [...this.clusters.values()].sort(
      (a, b) => a.start - b.start || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0),
    );
  }

  budgetIntervals(): BudgetInterval[] {
    return [...this.budgets.values()].sort(
      (a, b) =>
        a.start - b.start ||
        (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0) ||
        (a.budgetId < b.budgetId ? -1 : a.budgetId > b.budgetId ? 1 : 0),
    );
  }
}
