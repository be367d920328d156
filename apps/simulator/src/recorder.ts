/**
 * What the simulator records for the SPEC §4 measures, in the shapes the core's measure functions
 * take: hourly ClusterInterval / BudgetInterval rows (integrated incrementally from rates, never by
 * rescanning), one RunSegment per run, one PreemptionRecord per preemption. It records, it does not
 * judge: availability, occupancy, delivery, percentiles, ... are the core's computeMeasures.
 */
import {
  HOUR,
  HourlyAccumulator,
  isHealthyCapacity,
  type BudgetInterval,
  type ClusterInterval,
  type Node,
  type PolicyConfig,
  type PreemptReasonCode,
  type PreemptionRecord,
  type RunSegment,
  type WaitingJob,
  type SegmentEndReason,
} from "@tranche/scheduler-core";
import type { StopCause } from "./events-log.js";
import type { SimJob } from "./types.js";

export interface RecorderCluster {
  readonly name: string;
  readonly totalGpus: number;
  /** Leaf budget ids (paths) and their effective allocation on this cluster. */
  readonly leaves: ReadonlyMap<string, number>;
}

interface ClusterRec {
  readonly info: RecorderCluster;
  healthyGpus: number;
  readonly nodeHealthy: Map<string, boolean>;
  readonly healthy: HourlyAccumulator;
  readonly allocated: HourlyAccumulator;
  readonly unallocated: HourlyAccumulator;
  readonly blockedIdle: HourlyAccumulator;
  /** GPUs of every job from submit until it ends (pending or running), allocated or not. */
  readonly requested: HourlyAccumulator;
  readonly demand: Map<string, HourlyAccumulator>;
  readonly ran: Map<string, HourlyAccumulator>;
}

const END_REASON: Record<StopCause, SegmentEndReason> = {
  finish: "COMPLETED",
  preempt: "PREEMPTED",
  kill: "KILLED",
  lost: "LOST",
  cancel: "CANCELLED",
};

export class MeasureRecorder {
  private readonly clusters: ClusterRec[];
  readonly segments: RunSegment[] = [];
  readonly preemptions: PreemptionRecord[] = [];
  /** The jobs still waiting at the end (filled by the engine when the run ends). */
  readonly waiting: WaitingJob[] = [];
  private end = 0;

  constructor(
    clusters: readonly RecorderCluster[],
    readonly policy: PolicyConfig,
  ) {
    this.clusters = clusters.map((info) => {
      const rec: ClusterRec = {
        info,
        healthyGpus: info.totalGpus,
        nodeHealthy: new Map(),
        healthy: new HourlyAccumulator(),
        allocated: new HourlyAccumulator(),
        unallocated: new HourlyAccumulator(),
        blockedIdle: new HourlyAccumulator(),
        requested: new HourlyAccumulator(),
        demand: new Map([...info.leaves.keys()].map((l) => [l, new HourlyAccumulator()])),
        ran: new Map([...info.leaves.keys()].map((l) => [l, new HourlyAccumulator()])),
      };
      rec.healthy.set(0, info.totalGpus);
      return rec;
    });
  }

  /** A node changed state or health; healthy capacity is the core's isHealthyCapacity. */
  nodeChanged(ci: number, node: Node, t: number): void {
    const c = this.clusters[ci]!;
    const healthy = isHealthyCapacity(node);
    const was = c.nodeHealthy.get(node.id) ?? true;
    if (healthy === was) return;
    c.nodeHealthy.set(node.id, healthy);
    c.healthyGpus += healthy ? node.gpuCount : -node.gpuCount;
    c.healthy.set(t, c.healthyGpus);
  }

  healthyGpus(ci: number): number {
    return this.clusters[ci]!.healthyGpus;
  }

  /**
   * SPEC §4 demand counts the budget's allocated jobs — by contract: minRuntime > 0 on a budget
   * with an allocation here — from submit until they end, whatever a policy decided to charge. So
   * every policy is judged against the same demand.
   */
  private inDemand(c: ClusterRec, job: SimJob): boolean {
    return job.minRuntime > 0 && (c.info.leaves.get(job.budget) ?? 0) > 0;
  }

  /** A job enters demand (+1, at submit) or leaves it (-1, when it ends for good). */
  demand(ci: number, job: SimJob, t: number, sign: 1 | -1): void {
    const c = this.clusters[ci]!;
    c.requested.add(t, sign * job.gpus);
    if (this.inDemand(c, job)) c.demand.get(job.budget)?.add(t, sign * job.gpus);
  }

  /** Idle schedulable GPUs while an allocated job stays blocked, from `t` on (cycle stats). */
  cycle(ci: number, t: number, blockedIdleGpus: number): void {
    const c = this.clusters[ci]!;
    if (c.blockedIdle.rate !== blockedIdleGpus) c.blockedIdle.set(t, blockedIdleGpus);
  }

  preempted(ci: number, job: SimJob, t: number, launchedAt: number | null, reason: PreemptReasonCode): PreemptionRecord {
    const move = reason === "CONSOLIDATION";
    const r: PreemptionRecord = {
      jobId: job.id,
      clusterId: this.clusters[ci]!.info.name,
      at: t,
      gpus: job.gpus,
      startedAt: launchedAt ?? t,
      restartedAt: null,
      ...(move ? { move } : {}),
      reason,
    };
    this.preemptions.push(r);
    return r;
  }

  runStart(ci: number, job: SimJob, charged: boolean, t: number, queuedAt: number): RunSegment {
    const c = this.clusters[ci]!;
    (charged ? c.allocated : c.unallocated).add(t, job.gpus);
    if (this.inDemand(c, job)) c.ran.get(job.budget)?.add(t, job.gpus);
    const seg: RunSegment = {
      jobId: job.id,
      clusterId: c.info.name,
      budgetId: job.budget,
      gpus: job.gpus,
      queuedAt,
      startedAt: t,
      endedAt: null,
      debug: this.debugContract(c, job),
      charged,
      endReason: null,
    };
    this.segments.push(seg);
    return seg;
  }

  /** A job still waiting when the run ends (queuedAt: its submit or latest requeue). */
  stillWaiting(ci: number, job: SimJob, queuedAt: number): void {
    this.waiting.push({ gpus: job.gpus, queuedAt, debug: this.debugContract(this.clusters[ci]!, job) });
  }

  /**
   * The debug lane by contract (SPEC §2: maxRuntime <= 15 min, gpus <= debugMaxGpus, charged like
   * allocated work, so only on a budget with an allocation here), whatever the policy decided.
   */
  private debugContract(c: ClusterRec, job: SimJob): boolean {
    return (
      job.maxRuntime !== null &&
      job.maxRuntime <= this.policy.debugMaxRuntime &&
      job.gpus <= this.policy.debugMaxGpus &&
      (c.info.leaves.get(job.budget) ?? 0) > 0
    );
  }

  runStop(ci: number, job: SimJob, seg: RunSegment, t: number, cause: StopCause): void {
    const c = this.clusters[ci]!;
    (seg.charged ? c.allocated : c.unallocated).add(t, -job.gpus);
    if (this.inDemand(c, job)) c.ran.get(job.budget)?.add(t, -job.gpus);
    seg.endedAt = t;
    seg.endReason = END_REASON[cause];
  }

  finish(end: number): void {
    this.end = end;
    for (const c of this.clusters) {
      for (const a of [c.healthy, c.allocated, c.unallocated, c.blockedIdle, c.requested]) a.advance(end);
      for (const a of c.demand.values()) a.advance(end);
      for (const a of c.ran.values()) a.advance(end);
    }
  }

  /**
   * GPU-seconds asked for by every job (pending or running, allocated or not) over the run, from
   * `from` (a whole hour) on: with the healthy GPU-seconds, how many times the capacity the workload
   * asked for (not a SPEC measure).
   */
  requestedGpuSeconds(from = 0): number {
    let s = 0;
    const h0 = Math.floor(from / HOUR);
    for (const c of this.clusters) for (let h = h0; h < c.requested.buckets.length; h++) s += c.requested.buckets[h]!;
    return s;
  }

  /** Hourly rows over [0, end) for every cluster. */
  clusterIntervals(): ClusterInterval[] {
    const hours = Math.ceil(this.end / HOUR);
    const out: ClusterInterval[] = [];
    for (const c of this.clusters) {
      const healthy = c.healthy.series(hours);
      const allocated = c.allocated.series(hours);
      const unallocated = c.unallocated.series(hours);
      const frag = c.blockedIdle.series(hours);
      for (let h = 0; h < hours; h++) {
        const start = h * HOUR;
        const end = Math.min(this.end, start + HOUR);
        out.push({
          clusterId: c.info.name,
          start,
          end,
          totalGpuSeconds: c.info.totalGpus * (end - start),
          healthyGpuSeconds: healthy[h]!,
          allocatedGpuSeconds: allocated[h]!,
          unallocatedGpuSeconds: unallocated[h]!,
          fragmentationGpuSeconds: frag[h]!,
        });
      }
    }
    return out;
  }

  /** Hourly rows per leaf budget: entitlement = effective allocation x healthy GPU-seconds. */
  budgetIntervals(): BudgetInterval[] {
    const hours = Math.ceil(this.end / HOUR);
    const out: BudgetInterval[] = [];
    for (const c of this.clusters) {
      const healthy = c.healthy.series(hours);
      for (const [budget, eff] of c.info.leaves) {
        const demand = c.demand.get(budget)!.series(hours);
        const ran = c.ran.get(budget)!.series(hours);
        for (let h = 0; h < hours; h++) {
          const entitlement = eff * healthy[h]!;
          if (entitlement === 0 && demand[h] === 0 && ran[h] === 0) continue;
          out.push({
            clusterId: c.info.name,
            budgetId: budget,
            start: h * HOUR,
            end: Math.min(this.end, (h + 1) * HOUR),
            entitlementGpuSeconds: entitlement,
            demandGpuSeconds: demand[h]!,
            ranGpuSeconds: ran[h]!,
          });
        }
      }
    }
    return out;
  }
}
