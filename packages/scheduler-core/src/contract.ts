import type { JobContract, Node, PendingJob, PolicyConfig, Placement, RunningJob, ValidationResult } from "./types";
import { formatExactDuration } from "./format";

/**
 * Contract helpers shared by the core, the API, the CLI and the trace importers, so a job that the
 * API accepts is a job the scheduler can place (SPEC §6) and every entry point words errors alike.
 */

/**
 * The running copy of a pending job that starts. Written out rather than spread: pending jobs come in
 * many object shapes, and one literal gives every running job one hidden class, so the core's reads
 * of ~1,000 running jobs a cycle stay monomorphic (a spread was the costliest line of a cold cycle).
 * Shared by the core (jobs it starts within a cycle) and the simulator (jobs whose start it applies).
 */
export function startedRun(p: PendingJob, startedAt: number, placement: Placement[], charged: boolean): RunningJob {
  return {
    id: p.id,
    name: p.name,
    budgetId: p.budgetId,
    userId: p.userId,
    userName: p.userName,
    submittedAt: p.submittedAt,
    gpus: p.gpus,
    minRuntime: p.minRuntime,
    maxRuntime: p.maxRuntime,
    priority: p.priority,
    resumable: p.resumable,
    requeueOnPreempt: p.requeueOnPreempt,
    gracePeriod: p.gracePeriod,
    startedAt,
    placement,
    charged,
    stopping: null,
  };
}

/**
 * The size of a whole node in this cluster: the largest gpuCount. Clusters hold one GPU type and in
 * practice one node shape; with mixed shapes multi-node jobs only use nodes of this size.
 */
export function nodeSize(nodes: readonly Pick<Node, "gpuCount">[]): number {
  let size = 0;
  for (const n of nodes) if (n.gpuCount > size) size = n.gpuCount;
  return size;
}

/** R5: short and small jobs form the debug lane. */
export function isDebugLane(
  job: Pick<JobContract, "gpus" | "maxRuntime">,
  policy: Pick<PolicyConfig, "debugMaxRuntime" | "debugMaxGpus">,
): boolean {
  return job.maxRuntime !== null && job.maxRuntime <= policy.debugMaxRuntime && job.gpus <= policy.debugMaxGpus;
}

/**
 * SPEC §2: allocated occupancy = minRuntime > 0 and a budget with entitlement. Everything else is
 * unallocated: free, never charged, preemptible at any moment by allocated work.
 */
export function isAllocated(job: Pick<JobContract, "minRuntime">, budgetHasEntitlement: boolean): boolean {
  return job.minRuntime > 0 && budgetHasEntitlement;
}

/** R6: the grace a preempted job gets: its own request capped at the maximum, else the default. */
export function gracePeriodFor(
  job: Pick<JobContract, "gracePeriod">,
  charged: boolean,
  policy: Pick<PolicyConfig, "gracePeriod" | "unallocatedGracePeriod" | "maxGracePeriod">,
): number {
  if (job.gracePeriod !== null && job.gracePeriod >= 0) return Math.min(job.gracePeriod, policy.maxGracePeriod);
  return charged ? policy.gracePeriod : policy.unallocatedGracePeriod;
}

/** R6: a resumable job is requeued; a non-resumable one only if it asked to be. */
export function requeueAfterPreemption(job: Pick<JobContract, "resumable" | "requeueOnPreempt">): boolean {
  return job.resumable || job.requeueOnPreempt;
}

/** The minRuntime cap in force on a cluster. */
export function minRuntimeCap(
  cluster: { maxMinRuntime?: number | null } | null | undefined,
  policy: Pick<PolicyConfig, "maxMinRuntime">,
): number {
  return cluster?.maxMinRuntime ?? policy.maxMinRuntime;
}

const isWholeNumber = (x: number): boolean => Number.isInteger(x);
const VALID: ValidationResult = Object.freeze({ ok: true }) as ValidationResult;

/**
 * SPEC §6: every reason a job contract cannot be accepted on a cluster, as specific sentences.
 * `nodes` are the cluster's nodes (all states: a node in repair still counts towards its size).
 */
export function validateJobContract(
  job: JobContract,
  nodes: readonly Pick<Node, "gpuCount">[],
  policy: Pick<PolicyConfig, "maxMinRuntime" | "maxGracePeriod">,
  cluster?: { maxMinRuntime?: number | null } | null,
): ValidationResult {
  return validateJobContractOn(job, clusterShape(nodes), policy, cluster);
}

/** Node size and total GPUs of a cluster, computed once for many validations. */
export interface ClusterShape {
  nodeSize: number;
  totalGpus: number;
}

export function clusterShape(nodes: readonly Pick<Node, "gpuCount">[]): ClusterShape {
  return { nodeSize: nodeSize(nodes), totalGpus: nodes.reduce((s, n) => s + n.gpuCount, 0) };
}

/** validateJobContract with the cluster's shape precomputed (the core validates every pending job). */
export function validateJobContractOn(
  job: JobContract,
  shape: ClusterShape,
  policy: Pick<PolicyConfig, "maxMinRuntime" | "maxGracePeriod">,
  cluster?: { maxMinRuntime?: number | null } | null,
): ValidationResult {
  // Fast path: the core validates every pending job every cycle, and nearly all are fine.
  const cap = minRuntimeCap(cluster, policy);
  const size = shape.nodeSize;
  const total = shape.totalGpus;
  if (
    Number.isInteger(job.gpus) &&
    job.gpus > 0 &&
    job.gpus <= total &&
    (job.gpus <= size || size === 0 || job.gpus % size === 0) &&
    Number.isInteger(job.minRuntime) &&
    job.minRuntime >= 0 &&
    job.minRuntime <= cap &&
    (job.maxRuntime === null || (Number.isInteger(job.maxRuntime) && job.maxRuntime > 0 && job.maxRuntime >= job.minRuntime)) &&
    (job.gracePeriod === null ||
      (Number.isInteger(job.gracePeriod) && job.gracePeriod >= 0 && job.gracePeriod <= policy.maxGracePeriod)) &&
    Number.isInteger(job.priority)
  )
    return VALID;
  // In the words of the submit form and the CLI's flags, never the input's field names ("minRuntime"):
  // people read them (a refused submit, an INVALID_CONTRACT reason); `fields` keeps the names for callers.
  const errors: string[] = [];
  const fields: string[] = [];
  const add = (field: string, sentence: string): void => {
    fields.push(field);
    errors.push(sentence);
  };

  if (!isWholeNumber(job.gpus)) add("gpus", `The number of GPUs must be a whole number, got ${job.gpus}`);
  else if (job.gpus <= 0) add("gpus", `The number of GPUs must be at least 1, got ${job.gpus}`);
  else if (job.gpus > total) add("gpus", `${job.gpus} GPUs are more than the cluster has (${total})`);
  else if (size > 0 && job.gpus > size && job.gpus % size !== 0)
    add(
      "gpus",
      `${job.gpus} GPUs span several nodes but are not a multiple of the node size, ${size} (use ${Math.floor(job.gpus / size) * size} or ${Math.ceil(job.gpus / size) * size})`,
    );

  if (!isWholeNumber(job.minRuntime)) add("minRuntime", `Minimum runtime must be whole seconds, got ${job.minRuntime}`);
  else if (job.minRuntime < 0) add("minRuntime", `Minimum runtime must not be negative, got ${job.minRuntime} s`);
  else if (job.minRuntime > cap)
    add(
      "minRuntime",
      `Minimum runtime ${formatExactDuration(job.minRuntime)} is above the cluster's limit of ${formatExactDuration(cap)}`,
    );

  if (job.maxRuntime !== null) {
    if (!isWholeNumber(job.maxRuntime) || job.maxRuntime <= 0)
      add("maxRuntime", `Maximum runtime must be a positive number of seconds, got ${job.maxRuntime}`);
    else if (isWholeNumber(job.minRuntime) && job.maxRuntime < job.minRuntime)
      add(
        "maxRuntime",
        `Maximum runtime ${formatExactDuration(job.maxRuntime)} is shorter than the minimum runtime, ${formatExactDuration(job.minRuntime)}`,
      );
  }

  if (job.gracePeriod !== null) {
    if (!isWholeNumber(job.gracePeriod) || job.gracePeriod < 0)
      add("gracePeriod", `Grace period must be a non-negative number of seconds, got ${job.gracePeriod}`);
    else if (job.gracePeriod > policy.maxGracePeriod)
      add(
        "gracePeriod",
        `Grace period ${formatExactDuration(job.gracePeriod)} is above the maximum of ${formatExactDuration(policy.maxGracePeriod)}`,
      );
  }

  if (!Number.isFinite(job.priority) || !isWholeNumber(job.priority))
    add("priority", `Priority must be a whole number, got ${job.priority}`);

  return errors.length === 0 ? { ok: true } : { ok: false, errors, fields };
}

/**
 * When a running job's protection ends (R3): its start plus minRuntime when charged, its start when
 * not. The squatting policy (PolicyConfig.squattingUnprotectAfter, 0 = off) cuts it short for a job
 * flagged as likely squatting: protection ends once it has been flagged that long, never before it
 * started. One rule for the worker, the simulator and every view.
 */
export function protectionEnd(
  job: Pick<RunningJob, "startedAt" | "minRuntime" | "squattingSince">,
  charged: boolean,
  policy: Pick<PolicyConfig, "squattingUnprotectAfter">,
): number {
  if (!charged) return job.startedAt;
  const contract = job.startedAt + job.minRuntime;
  const after = policy.squattingUnprotectAfter;
  const flagged = job.squattingSince;
  if (!(after > 0) || flagged === null || flagged === undefined) return contract;
  return Math.max(job.startedAt, Math.min(contract, flagged + after));
}
