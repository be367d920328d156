import { describe, expect, it } from "vitest";
import {
  HOUR,
  HourlyAccumulator,
  computeAvailability,
  computeDelivery,
  computeFragmentation,
  computeMeasures,
  computeOccupancy,
  computePreemptions,
  computeQueueWaits,
  computeStillWaiting,
  isSquatting,
  squattingSince,
  percentiles,
  type BudgetInterval,
  type ClusterInterval,
  type RunSegment,
} from "../src/index";

const hour = (over: Partial<ClusterInterval>): ClusterInterval => ({
  clusterId: "c1",
  start: 0,
  end: 3600,
  totalGpuSeconds: 100 * 3600,
  healthyGpuSeconds: 100 * 3600,
  allocatedGpuSeconds: 0,
  unallocatedGpuSeconds: 0,
  fragmentationGpuSeconds: 0,
  ...over,
});
const budgetHour = (budgetId: string, entitlement: number, demand: number, ran: number, start = 0): BudgetInterval => ({
  clusterId: "c1",
  budgetId,
  start,
  end: start + 3600,
  entitlementGpuSeconds: entitlement,
  demandGpuSeconds: demand,
  ranGpuSeconds: ran,
});
const segment = (over: Partial<RunSegment>): RunSegment => ({
  jobId: "j",
  clusterId: "c1",
  budgetId: "a",
  gpus: 1,
  queuedAt: 0,
  startedAt: 0,
  endedAt: null,
  debug: false,
  charged: true,
  ...over,
});

describe("SPEC §4 measures", () => {
  it("computes availability and the occupancy split over healthy time", () => {
    const hours = [
      hour({ healthyGpuSeconds: 90 * 3600, allocatedGpuSeconds: 72 * 3600, unallocatedGpuSeconds: 9 * 3600 }),
      hour({
        start: 3600,
        end: 7200,
        healthyGpuSeconds: 100 * 3600,
        allocatedGpuSeconds: 80 * 3600,
        unallocatedGpuSeconds: 10 * 3600,
      }),
    ];
    expect(computeAvailability(hours)).toBeCloseTo(0.95, 10);
    const o = computeOccupancy(hours);
    expect(o.occupancy).toBeCloseTo(171 / 190, 10);
    expect(o.allocated).toBeCloseTo(152 / 190, 10);
    expect(o.unallocated).toBeCloseTo(19 / 190, 10);
    expect(o.unallocatedShareOfOccupied).toBeCloseTo(19 / 171, 10);
  });

  it("takes owed as min(entitlement, demand) hour by hour and caps delivered at owed", () => {
    const d = computeDelivery([
      budgetHour("a", 100, 50, 80), // owed 50, delivered 50
      budgetHour("a", 100, 200, 60, 3600), // owed 100, delivered 60
      budgetHour("b", 100, 100, 97), // owed 100, delivered 97
      budgetHour("c", 100, 0, 30), // owed nothing
    ]);
    expect(d.perBudget).toEqual([
      { budgetId: "a", owedGpuSeconds: 150, deliveredGpuSeconds: 110, delivery: 110 / 150 },
      { budgetId: "b", owedGpuSeconds: 100, deliveredGpuSeconds: 97, delivery: 0.97 },
      { budgetId: "c", owedGpuSeconds: 0, deliveredGpuSeconds: 0, delivery: null },
    ]);
    expect(d.delivery).toBeCloseTo(207 / 250, 10);
    expect(d).toMatchObject({ budgetsOwed: 2, budgetsAtLeast95: 1, minBudgetId: "a" });
    expect(d.minDelivery).toBeCloseTo(110 / 150, 10);
  });

  it("uses nearest-rank percentiles", () => {
    const p = percentiles([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]);
    expect(p).toMatchObject({ count: 10, p50: 5, p90: 9, p99: 10, mean: 5.5 });
    expect(percentiles([])).toEqual({ count: 0, p50: null, p90: null, p99: null, mean: null });
  });

  it("measures queue waits from submit or requeue, by class", () => {
    const q = computeQueueWaits(
      [
        segment({ queuedAt: 0, startedAt: 30, debug: true }),
        segment({ queuedAt: 100, startedAt: 700, gpus: 64 }),
        segment({ queuedAt: 0, startedAt: 10 }),
      ],
      64,
    );
    expect(q.all).toMatchObject({ count: 3, p50: 30, p99: 600 });
    expect(q.debug).toMatchObject({ count: 1, p50: 30 });
    expect(q.large).toMatchObject({ count: 1, p50: 600 });
  });

  it("measures the jobs still waiting at the end by their waits so far, by class", () => {
    // A job that never started has no queue wait at all; here it counts, with end - (submit or requeue).
    const q = computeStillWaiting(
      [
        { gpus: 1, queuedAt: 900, debug: true },
        { gpus: 128, queuedAt: 0, debug: false },
        { gpus: 64, queuedAt: 400, debug: false },
        { gpus: 8, queuedAt: 1200, debug: false }, // queued after the end: no negative wait
      ],
      1000,
      64,
    );
    expect(q.all).toMatchObject({ count: 4, p50: 100, p99: 1000 });
    expect(q.debug).toMatchObject({ count: 1, p50: 100 });
    expect(q.large).toMatchObject({ count: 2, p50: 600, p90: 1000 });
    expect(computeStillWaiting([], 1000).large).toEqual({ count: 0, p50: null, p90: null, p99: null, mean: null });
  });

  it("counts preemptions, the GPU-hours lost since the victims' starts and requeue waits", () => {
    const p = computePreemptions([
      { jobId: "x", clusterId: "c1", at: 7200, gpus: 8, startedAt: 3600, restartedAt: 7300 },
      { jobId: "y", clusterId: "c1", at: 100, gpus: 2, startedAt: 0, restartedAt: null },
    ]);
    expect(p).toMatchObject({ count: 2, gpuSeconds: 8 * 3600 + 200, requeueWait: { count: 1, p50: 100 } });
    expect(p.gpuHours).toBeCloseTo((8 * 3600 + 200) / 3600, 10);
    expect(p.byReason).toEqual({}); // no reason recorded: in none of the reasons
  });

  it("splits the preemptions by their reason, moves left out", () => {
    const p = computePreemptions([
      { jobId: "x", clusterId: "c1", at: 7200, gpus: 8, startedAt: 3600, reason: "FAIR_SHARE" },
      { jobId: "y", clusterId: "c1", at: 100, gpus: 2, startedAt: 0, reason: "UNALLOCATED_FOR_ALLOCATED" },
      { jobId: "z", clusterId: "c1", at: 3600, gpus: 1, startedAt: 0, reason: "FAIR_SHARE" },
      { jobId: "m", clusterId: "c1", at: 3600, gpus: 4, startedAt: 0, move: true, reason: "CONSOLIDATION" },
    ]);
    expect(p.byReason).toEqual({
      FAIR_SHARE: { count: 2, gpuHours: 9 },
      UNALLOCATED_FOR_ALLOCATED: { count: 1, gpuHours: 200 / 3600 },
    });
    expect(p.count).toBe(3);
    expect(p.moves).toBe(1);
  });

  it("sums fragmentation as a share of healthy time", () => {
    const f = computeFragmentation([hour({ fragmentationGpuSeconds: 360 * 10 })]);
    expect(f.gpuSeconds).toBe(3600);
    expect(f.fraction).toBeCloseTo(0.01, 10);
  });

  it("integrates a piecewise-constant rate into hourly buckets, across hour boundaries", () => {
    const acc = new HourlyAccumulator();
    acc.set(1800, 16); // 16 GPUs from 0:30
    acc.add(5400, -6); // 10 GPUs from 1:30
    acc.advance(2 * HOUR);
    expect(acc.series(3)).toEqual([16 * 1800, 16 * 1800 + 10 * 1800, 0]);
    const hours = [0, 1].map((h) => ({
      clusterId: "c",
      start: h * HOUR,
      end: (h + 1) * HOUR,
      totalGpuSeconds: 24 * HOUR,
      healthyGpuSeconds: acc.series(2)[h]!,
      allocatedGpuSeconds: 0,
      unallocatedGpuSeconds: 0,
      fragmentationGpuSeconds: 0,
    }));
    const m = computeMeasures({ clusterIntervals: hours, budgetIntervals: [], segments: [], preemptions: [] });
    expect(m.availability).toBeCloseTo((16 * 3600 + 10 * 1800) / (24 * 7200), 10);
  });

  it("keeps a job's idle streak while its GPUs stay under 5% busy and flags it after 30 minutes; a busy report resets it", () => {
    let since: number | null = null;
    for (const at of [0, 600, 1200]) since = squattingSince(since, [1, 3], at);
    expect(since).toBe(0);
    expect(isSquatting(since, 1799)).toBe(false);
    expect(isSquatting(since, 1800)).toBe(true);
    expect(squattingSince(since, [], 1900)).toBe(0); // no reading: unchanged
    expect(squattingSince(since, [2, 40], 2000)).toBeNull();
  });
});
