import { defaultPolicy } from "@tranche/scheduler-core";

/**
 * The simulator's own input model: what a scenario file says, after validation, with every
 * duration in whole seconds. Policy decisions never live here; these are only inputs.
 */

export interface ClusterSpec {
  readonly name: string;
  readonly gpuType: string;
  readonly nodes: number;
  readonly gpusPerNode: number;
}

/** A budget-tree node; `allocation` is the fraction of the parent's allocation, per cluster. */
export interface BudgetSpec {
  readonly name: string;
  readonly allocation: Readonly<Record<string, number>>;
  readonly children: readonly BudgetSpec[];
}

/** SPEC knobs, all in seconds except the fractions and GPU counts. */
export interface PolicyKnobs {
  readonly lookbackWindow: number;
  readonly projectionHorizon: number;
  readonly preemptionMargin: number;
  readonly maxMinRuntime: number;
  readonly debugMaxGpus: number;
  readonly debugMaxGpusPerUser: number;
  readonly gracePeriod: number;
  readonly unallocatedGracePeriod: number;
  readonly heartbeatTimeout: number;
  readonly debugReserve: number;
  /** GPU-seconds (a duration in the file: `4h` is 4 GPU-hours), the core's PolicyConfig.debugVictimMaxCost. */
  readonly debugVictimMaxCost: number;
}

export interface SimulationKnobs {
  /** Time a resumed job spends before doing new work again (reload, warm-up). */
  readonly restartOverhead: number;
  /** A resumable job checkpoints every this many seconds of work. */
  readonly checkpointInterval: number;
  /** Stop the clock here; `null` runs until every job has finished. */
  readonly until: number | null;
  /**
   * The report's measures cover [measureFrom, end) (SPEC §4: "over any window"); what runs before
   * is a warm-up. A whole number of hours (the measures are hourly). Default 0.
   */
  readonly measureFrom: number;
}

/**
 * `unhealthy`: the agent reports the node unhealthy (SPEC R8 drain). `healthy`: healthy report
 * (back to READY after repair; also ends a `down`). `down`: the agent goes silent (SPEC R9: DOWN
 * once `heartbeatTimeout` has passed). `maintenance`: an operator drains the node.
 */
export const NODE_HEALTH = ["healthy", "unhealthy", "down", "maintenance"] as const;
export type NodeHealth = (typeof NODE_HEALTH)[number];

export interface NodeEventSpec {
  readonly t: number;
  readonly node: string;
  readonly health: NodeHealth;
}

export interface SimJob {
  readonly id: string;
  readonly submit: number;
  /** Budget path below the root, e.g. `nlp/pretrain`. */
  readonly budget: string;
  readonly user: string;
  readonly cluster: string;
  readonly gpus: number;
  /** Work the job needs, in seconds of running (restart overhead comes on top). */
  readonly duration: number;
  readonly minRuntime: number;
  readonly maxRuntime: number | null;
  readonly resumable: boolean;
  readonly priority: number;
}

export interface Scenario {
  readonly clusters: readonly ClusterSpec[];
  readonly budgets: BudgetSpec;
  readonly policy: PolicyKnobs;
  readonly simulation: SimulationKnobs;
  readonly nodeEvents: readonly NodeEventSpec[];
  readonly jobs: readonly SimJob[];
}

/** Bad input: every problem found, each with where it is (file and line, or field path). */
export class InputError extends Error {
  constructor(readonly errors: readonly string[]) {
    super(`${errors.length} input error(s):\n${errors.slice(0, 50).join("\n")}`);
    this.name = "InputError";
  }
}

/** The core's defaults (one copy of every policy value: packages/scheduler-core/src/policy.ts). */
export const DEFAULT_POLICY: PolicyKnobs = {
  lookbackWindow: defaultPolicy.lookbackWindow,
  projectionHorizon: defaultPolicy.projectionHorizon,
  preemptionMargin: defaultPolicy.preemptionMargin,
  maxMinRuntime: defaultPolicy.maxMinRuntime,
  debugMaxGpus: defaultPolicy.debugMaxGpus,
  debugMaxGpusPerUser: defaultPolicy.debugMaxGpusPerUser,
  gracePeriod: defaultPolicy.gracePeriod,
  unallocatedGracePeriod: defaultPolicy.unallocatedGracePeriod,
  heartbeatTimeout: defaultPolicy.heartbeatTimeout,
  debugReserve: defaultPolicy.debugReserve,
  debugVictimMaxCost: defaultPolicy.debugVictimMaxCost,
};

export const DEFAULT_SIMULATION: SimulationKnobs = {
  restartOverhead: 300,
  checkpointInterval: 1800,
  until: null,
  measureFrom: 0,
};

/** Trace defaults for blank fields (documented in the README). */
export const TRACE_DEFAULTS = {
  /** min_runtime blank: min(duration, 2h), and never above the policy's maxMinRuntime. */
  minRuntimeCap: 2 * 3600,
  resumable: true,
  priority: 0,
} as const;
