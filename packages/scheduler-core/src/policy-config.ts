// The policy's tunables, part of the stable contract re-exported by types.ts: changes are additive only.

/** Tunables of the policy. `defaultPolicy` (policy.ts) holds the SPEC defaults. */
export interface PolicyConfig {
  /** Sliding lookback window for usage and entitlement, seconds (SPEC default 7 days). */
  lookbackWindow: number;
  /** R2: running GPUs are projected to run this much longer when ranking, seconds (default 1 h). */
  projectionHorizon: number;
  /** R4: a preemptor's projected ratio must be below victimRatio * (1 - margin). Default 0.1. */
  preemptionMargin: number;
  /** Cap on a job's minRuntime, seconds (default 8 h). `Cluster.maxMinRuntime` overrides it. */
  maxMinRuntime: number;
  /** R5: a job is in the debug lane when maxRuntime <= this (default 15 min) ... */
  debugMaxRuntime: number;
  /** ... and gpus <= this (default 8). */
  debugMaxGpus: number;
  /** R5: GPUs one user may hold in the debug lane at once, running + started this cycle (default 8). */
  debugMaxGpusPerUser: number;
  /** R6: grace between SIGTERM and SIGKILL for allocated jobs, seconds (default 120). */
  gracePeriod: number;
  /** R6: grace for unallocated jobs, seconds (default 10). */
  unallocatedGracePeriod: number;
  /** R6: the most grace a job may ask for, seconds (default 10 min). */
  maxGracePeriod: number;
  /** R9: a node agent silent this long stops its own jobs (fencing), seconds (default 30). */
  heartbeatTimeout: number;
  /**
   * R9: the fencing agent's SIGTERM-to-SIGKILL time; a node silent for heartbeatTimeout + fenceGrace
   * is DOWN and its jobs lost (requeued): by then their processes are gone, so no job runs twice (default 10).
   */
  fenceGrace: number;
  /** SPEC §4: jobs with at least this many GPUs are "large" in queue-wait measures (default 64). */
  largeJobGpus: number;
  /** R7: how many blocked jobs get a reservation per cycle (default 1: the first blocked job). */
  maxReservations: number;
  /**
   * Speed bound: at most this many full preemption searches (a scan of every preemptible job) per
   * cycle. Searches that cannot succeed are skipped by cheap exact bounds first, so the cap only
   * matters on huge clusters full of interruptible work. Default 2,000.
   */
  maxPreemptionSearches: number;
  /**
   * R12: an unallocated job is moved (stopped and restarted on other free GPUs) at most once per this
   * many seconds since its latest start (default 30 min).
   */
  consolidationMinAge: number;
  /**
   * R5: share of the healthy GPUs that work outside the debug lane leaves free, so debug-lane jobs
   * start at once instead of preempting a job that has run for hours (and waiting for its grace).
   * Rounded down to whole GPUs (0 under 50 GPUs), kept on the emptiest nodes (cycle/debug-reserve.ts).
   * Default 2%: on philly-overload it halved preemptions for 2 points of occupancy (see
   * docs/scheduling-model.md, Changes).
   */
  debugReserve: number;
  /**
   * R5: the most R6 cost (GPU-seconds: work since the last checkpoint plus a quarter of the run's
   * GPU-time, victim-cost.ts costOf) a debug-lane job may make one interruptible victim lose; an
   * older run is not its victim. A debug job runs at most debugMaxRuntime on at most debugMaxGpus
   * (2 GPU-hours), so ending a day-old 8-GPU run for it lost a hundred times what it gained. Default
   * 4 GPU-hours: on philly-overload the preempted GPU-hours fell from 25.4% to 18.8% of capacity with
   * the debug p90 unchanged (docs/scheduling-model.md, Changes). Infinity: any interruptible victim.
   */
  debugVictimMaxCost: number;
  /**
   * Squatting: a running job flagged as likely squatting (`RunningJob.squattingSince`) for this long,
   * seconds, loses the rest of its protection and becomes interruptible. 0 = never (default): the
   * flag is then only shown, never acted on.
   */
  squattingUnprotectAfter: number;
}
