import { percentiles } from "./percentiles";
import type {
  BudgetDelivery,
  BudgetInterval,
  ClusterInterval,
  DeliverySummary,
  MeasuresSummary,
  OccupancySummary,
  PreemptionRecord,
  PreemptionSummary,
  QueueWaitSummary,
  RunSegment,
  WaitingJob,
} from "./types";

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/** SPEC §4 availability = healthy GPU-time / total GPU-time. */
export function computeAvailability(intervals: readonly ClusterInterval[]): number | null {
  let healthy = 0;
  let total = 0;
  for (const i of intervals) {
    healthy += i.healthyGpuSeconds;
    total += i.totalGpuSeconds;
  }
  return ratio(healthy, total);
}

/** SPEC §4 occupancy = occupied / healthy GPU-time, split allocated / unallocated. */
export function computeOccupancy(intervals: readonly ClusterInterval[]): OccupancySummary {
  let healthy = 0;
  let allocated = 0;
  let unallocated = 0;
  for (const i of intervals) {
    healthy += i.healthyGpuSeconds;
    allocated += i.allocatedGpuSeconds;
    unallocated += i.unallocatedGpuSeconds;
  }
  return {
    occupancy: ratio(allocated + unallocated, healthy),
    allocated: ratio(allocated, healthy),
    unallocated: ratio(unallocated, healthy),
    unallocatedShareOfOccupied: ratio(unallocated, allocated + unallocated),
  };
}

/**
 * SPEC §4 delivery. Per budget and interval (an hour): owed = min(entitlement, demand) and
 * delivered = min(ran, owed); delivery = sum(delivered) / sum(owed), per budget and overall, with the
 * count of budgets at >= 95% and the minimum (ties: smaller budget id).
 */
export function computeDelivery(intervals: readonly BudgetInterval[]): DeliverySummary {
  const per = new Map<string, { owed: number; delivered: number }>();
  let owedAll = 0;
  let deliveredAll = 0;
  for (const i of intervals) {
    const owed = Math.max(0, Math.min(i.entitlementGpuSeconds, i.demandGpuSeconds));
    const delivered = Math.max(0, Math.min(i.ranGpuSeconds, owed));
    const acc = per.get(i.budgetId) ?? { owed: 0, delivered: 0 };
    acc.owed += owed;
    acc.delivered += delivered;
    per.set(i.budgetId, acc);
    owedAll += owed;
    deliveredAll += delivered;
  }
  const perBudget: BudgetDelivery[] = [...per.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([budgetId, v]) => ({
      budgetId,
      owedGpuSeconds: v.owed,
      deliveredGpuSeconds: v.delivered,
      delivery: ratio(v.delivered, v.owed),
    }));
  let budgetsOwed = 0;
  let atLeast95 = 0;
  let min: number | null = null;
  let minId: string | null = null;
  for (const b of perBudget) {
    if (b.delivery === null) continue;
    budgetsOwed++;
    if (b.delivery >= 0.95) atLeast95++;
    if (min === null || b.delivery < min) {
      min = b.delivery;
      minId = b.budgetId;
    }
  }
  return {
    owedGpuSeconds: owedAll,
    deliveredGpuSeconds: deliveredAll,
    delivery: ratio(deliveredAll, owedAll),
    perBudget,
    budgetsOwed,
    budgetsAtLeast95: atLeast95,
    minDelivery: min,
    minBudgetId: minId,
  };
}

/** SPEC §4 queue wait = start - (submit or requeue) per run segment, for all, debug and large jobs. */
export function computeQueueWaits(segments: readonly RunSegment[], largeJobGpus = 64): QueueWaitSummary {
  const waits = new WaitSplit(largeJobGpus);
  for (const s of segments) waits.add(Math.max(0, s.startedAt - s.queuedAt), s.debug, s.gpus);
  return waits.summary();
}

/**
 * The jobs still waiting when a window ends, by their waits so far (end - submit or requeue): what the
 * queue-wait percentiles leave out, since they count starts. A policy that never starts a kind of job
 * has no queue wait for it at all; here it has how many wait and a lower bound on how long (helios,
 * the priority baseline: no >= 64-GPU job started, 116 still waiting). Not a SPEC §4 measure; the
 * simulator reports it beside the queue waits (docs/scheduling-model.md §4).
 */
export function computeStillWaiting(jobs: readonly WaitingJob[], end: number, largeJobGpus = 64): QueueWaitSummary {
  const waits = new WaitSplit(largeJobGpus);
  for (const j of jobs) waits.add(Math.max(0, end - j.queuedAt), j.debug, j.gpus);
  return waits.summary();
}

/** Waits split as the queue-wait measures split them: all jobs, the debug lane, large jobs. */
class WaitSplit {
  private readonly all: number[] = [];
  private readonly debug: number[] = [];
  private readonly large: number[] = [];

  constructor(private readonly largeJobGpus: number) {}

  add(wait: number, debug: boolean, gpus: number): void {
    this.all.push(wait);
    if (debug) this.debug.push(wait);
    if (gpus >= this.largeJobGpus) this.large.push(wait);
  }

  summary(): QueueWaitSummary {
    return { all: percentiles(this.all), debug: percentiles(this.debug), large: percentiles(this.large) };
  }
}

/** SPEC §4 preemptions: count, GPU-time lost since the victims' latest starts, requeue waits; R12 moves apart. */
export function computePreemptions(records: readonly PreemptionRecord[]): PreemptionSummary {
  let gpuSeconds = 0;
  let moves = 0;
  let lost = 0;
  const waits: number[] = [];
  const byReason: PreemptionSummary["byReason"] = {};
  for (const r of records) {
    // A move loses work too (since the last checkpoint, plus the restart): counted in lostGpuHours.
    lost += r.lostGpuSeconds ?? 0;
    if (r.move) {
      moves++;
      continue;
    }
    const ran = r.gpus * Math.max(0, r.at - r.startedAt);
    gpuSeconds += ran;
    if (r.restartedAt !== null && r.restartedAt !== undefined) waits.push(Math.max(0, r.restartedAt - r.at));
    if (r.reason) {
      const b = (byReason[r.reason] ??= { count: 0, gpuHours: 0 });
      b.count++;
      b.gpuHours += ran / 3600;
    }
  }
  return {
    count: records.length - moves,
    moves,
    gpuSeconds,
    gpuHours: gpuSeconds / 3600,
    lostGpuHours: lost / 3600,
    requeueWait: percentiles(waits),
    byReason,
  };
}

/** SPEC §4 fragmentation: idle GPU-time while a pending allocated job could not be placed. */
export function computeFragmentation(intervals: readonly ClusterInterval[]): { gpuSeconds: number; fraction: number | null } {
  let frag = 0;
  let healthy = 0;
  for (const i of intervals) {
    frag += i.fragmentationGpuSeconds;
    healthy += i.healthyGpuSeconds;
  }
  return { gpuSeconds: frag, fraction: ratio(frag, healthy) };
}

export interface MeasuresInput {
  clusterIntervals: readonly ClusterInterval[];
  budgetIntervals: readonly BudgetInterval[];
  segments: readonly RunSegment[];
  preemptions: readonly PreemptionRecord[];
  largeJobGpus?: number;
}

/** Every SPEC §4 measure over the given window (filter the inputs by cluster or time first). */
export function computeMeasures(input: MeasuresInput): MeasuresSummary {
  const frag = computeFragmentation(input.clusterIntervals);
  return {
    availability: computeAvailability(input.clusterIntervals),
    occupancy: computeOccupancy(input.clusterIntervals),
    delivery: computeDelivery(input.budgetIntervals),
    queueWait: computeQueueWaits(input.segments, input.largeJobGpus ?? 64),
    preemptions: computePreemptions(input.preemptions),
    fragmentationGpuSeconds: frag.gpuSeconds,
    fragmentation: frag.fraction,
  };
}
