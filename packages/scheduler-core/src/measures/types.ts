/**
 * Inputs and outputs of the SPEC §4 measures. Shapes are chosen so the simulator can produce them
 * cheaply (it integrates its rates per hour, see HourlyAccumulator) and the worker can produce
 * them from DB rows (run segments, preemption events, hourly rollups). All times are integer seconds,
 * all GPU time GPU-seconds.
 */
import type { PreemptReasonCode } from "../states-and-codes";

/** One interval (normally one hour) of one cluster. */
export interface ClusterInterval {
  clusterId: string;
  start: number;
  end: number;
  /** GPUs in the cluster x time. */
  totalGpuSeconds: number;
  /** GPUs on nodes that are not DOWN, REPAIR or unhealthy x time. */
  healthyGpuSeconds: number;
  /** Occupied by charged (allocated) runs. */
  allocatedGpuSeconds: number;
  /** Occupied by unallocated runs. */
  unallocatedGpuSeconds: number;
  /** Idle schedulable GPU-time while a pending allocated job could not be placed. */
  fragmentationGpuSeconds: number;
}

/** One interval (normally one hour) of one budget on one cluster. */
export interface BudgetInterval {
  clusterId: string;
  budgetId: string;
  start: number;
  end: number;
  /** Effective allocation x healthy capacity x time. */
  entitlementGpuSeconds: number;
  /** GPUs requested by its allocated jobs, running or pending (not held), x time. */
  demandGpuSeconds: number;
  /** GPU-time its charged runs actually ran. */
  ranGpuSeconds: number;
}

export const SEGMENT_END_REASONS = ["COMPLETED", "PREEMPTED", "LOST", "KILLED", "FAILED", "CANCELLED"] as const;
export type SegmentEndReason = (typeof SEGMENT_END_REASONS)[number];

/** One run of a job: from a start to its end (a requeued job has several). */
export interface RunSegment {
  jobId: string;
  clusterId: string;
  budgetId: string;
  gpus: number;
  /** Submit time for a first run, requeue time for a later one (queue wait = startedAt - queuedAt). */
  queuedAt: number;
  startedAt: number;
  endedAt: number | null;
  debug: boolean;
  charged: boolean;
  endReason?: SegmentEndReason | null;
}

/** A job still waiting when a measured window ends (computeStillWaiting). */
export interface WaitingJob {
  gpus: number;
  /** Submit time, or the latest requeue's. */
  queuedAt: number;
  /** The debug-lane contract, as RunSegment.debug. */
  debug: boolean;
}

/** One preemption (R6). */
export interface PreemptionRecord {
  jobId: string;
  clusterId: string;
  at: number;
  gpus: number;
  /** The victim's latest start. */
  startedAt: number;
  /** When the requeued job started again; null if it has not (yet) or was not requeued. */
  restartedAt?: number | null;
  /** R12: a move (CONSOLIDATION): the job restarted at once elsewhere; counted apart from preemptions. */
  move?: boolean;
  /** Why: the PREEMPT op's reason code (R3, R4, R5, R8, R12, or the priority baseline's), when known. */
  reason?: PreemptReasonCode | null;
  /**
   * Work lost to this preemption, GPU-seconds: the victim's work since its last checkpoint (all of
   * this run's work when not resumable) plus the restart overhead its next start pays. Null when not
   * known (yet).
   */
  lostGpuSeconds?: number | null;
}

export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
  mean: number | null;
}

export interface BudgetDelivery {
  budgetId: string;
  owedGpuSeconds: number;
  deliveredGpuSeconds: number;
  /** delivered / owed; null when nothing was owed. */
  delivery: number | null;
}

export interface DeliverySummary {
  owedGpuSeconds: number;
  deliveredGpuSeconds: number;
  /** Overall delivery = sum(delivered) / sum(owed); null when nothing was owed. */
  delivery: number | null;
  perBudget: BudgetDelivery[];
  /** Budgets that were owed something. */
  budgetsOwed: number;
  /** Of those, how many got >= 95%. */
  budgetsAtLeast95: number;
  minDelivery: number | null;
  minBudgetId: string | null;
}

export interface OccupancySummary {
  /** occupied / healthy. */
  occupancy: number | null;
  allocated: number | null;
  unallocated: number | null;
  /** Share of occupied time that was unallocated (the case study's "18%"). */
  unallocatedShareOfOccupied: number | null;
}

export interface QueueWaitSummary {
  all: Percentiles;
  debug: Percentiles;
  large: Percentiles;
}

export interface PreemptionSummary {
  /** Preemptions, moves (R12) not included; gpuSeconds and requeueWait likewise. */
  count: number;
  /** R12 moves: unallocated jobs stopped and restarted at once on other GPUs. */
  moves: number;
  gpuSeconds: number;
  gpuHours: number;
  /** Sum of the records' lostGpuSeconds, in hours. */
  lostGpuHours: number;
  requeueWait: Percentiles;
  /**
   * The preemptions whose reason is known, by reason: how many and the GPU-hours their victims had run
   * since their latest starts (as gpuHours). Moves are not preemptions here either.
   */
  byReason: Partial<Record<PreemptReasonCode, { count: number; gpuHours: number }>>;
}

export interface MeasuresSummary {
  availability: number | null;
  occupancy: OccupancySummary;
  delivery: DeliverySummary;
  queueWait: QueueWaitSummary;
  preemptions: PreemptionSummary;
  fragmentationGpuSeconds: number;
  /** fragmentation / healthy GPU-time. */
  fragmentation: number | null;
}
