import { z } from "zod";
import { duration, formatDuration } from "./duration";

export const JOB_STATES = [
  "PENDING",
  "HELD",
  "RUNNING",
  "STOPPING",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "KILLED",
  "LOST",
] as const;
export type JobState = (typeof JOB_STATES)[number];
export const ACTIVE_JOB_STATES = ["PENDING", "HELD", "RUNNING", "STOPPING"] as const satisfies readonly JobState[];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Environment variables: names are letters, digits and _, not starting with a digit; values strings. */
function envVars(what: string) {
  return z
    .record(z.string(), z.string({ error: `${what} values must be strings` }))
    .superRefine((env, ctx) => {
      for (const k of Object.keys(env))
        if (!ENV_NAME.test(k))
          ctx.addIssue({
            code: "custom",
            message: `${what} names are letters, digits and _, not starting with a digit: '${k}'`,
          });
    })
    .default({});
}

/**
 * A job submission (SPEC §2 contract), shared by the form, tRPC, REST `POST /api/v1/jobs` and the CLI.
 * Checks that need the cluster (more GPUs than it has, whole nodes, the minRuntime cap) and the
 * caller (may they charge this budget) are made by the domain's submitJob, with the same wording.
 */
export const submitJobInput = z
  .object({
    cluster: z.string().trim().min(1, "cluster is required").describe("Cluster name, e.g. h100"),
    budget: z
      .string()
      .trim()
      .min(1, "budget is required")
      .describe("Budget path (a leaf of the budget tree), e.g. lab/language/pretraining"),
    gpus: z
      .number({ error: "gpus must be a number" })
      .int("gpus must be a whole number")
      .min(1, "gpus must be at least 1")
      .describe("GPUs, all on one node, or whole nodes"),
    minRuntime: duration("minRuntime").describe(
      "Protected time after each start (seconds or e.g. 2h). 0 = unallocated work: free, preemptible at any moment",
    ),
    maxRuntime: duration("maxRuntime")
      .refine((v) => v > 0, "maxRuntime must be positive")
      .nullish()
      .describe("The job is killed after this long. <= 15 min and <= 8 GPUs puts it in the debug lane"),
    resumable: z.boolean().default(false).describe("It restarts from its own checkpoints: requeued after preemption"),
    priority: z
      .number()
      .int("priority must be a whole number")
      .min(-1000, "priority must be between -1000 and 1000")
      .max(1000, "priority must be between -1000 and 1000")
      .default(0)
      .describe("Orders jobs only within the same budget; higher first"),
    requeue: z.boolean().optional().describe("A non-resumable job asks to be requeued after preemption anyway"),
    gracePeriod: duration("gracePeriod")
      .nullish()
      .describe("Seconds between SIGTERM and SIGKILL when preempted (at most 10 min)"),
    command: z.string().trim().min(1, "command is required").max(10_000, "command is longer than 10,000 characters"),
    env: envVars("environment variable").describe("Environment variables for the job's processes"),
    secretEnv: envVars("secret environment variable").describe(
      "Environment variables whose values are handed to the job's processes but never shown (to anyone) or logged after submit",
    ),
    name: z.string().trim().min(1, "name must not be empty").max(120, "name is longer than 120 characters").optional(),
    idempotencyKey: z.string().min(1).max(200).optional().describe("Retries with the same key return the same job"),
  })
  .superRefine((job, ctx) => {
    for (const k of Object.keys(job.secretEnv))
      if (k in job.env)
        ctx.addIssue({ code: "custom", path: ["secretEnv", k], message: `${k} is in both env and secretEnv: give it once` });
  });
export type SubmitJobInput = z.input<typeof submitJobInput>;
export type SubmitJob = z.output<typeof submitJobInput>;

/** The most jobs one batch submission may hold. */
export const MAX_BATCH_JOBS = 1000;

/**
 * A batch submission (`POST /api/v1/jobs/batch`, `tranche submit --file`): up to 1,000 jobs, each
 * checked by `submitJobInput`; stored all together or not at all. Errors name the item: `jobs.3.gpus`.
 */
export const submitJobBatchInput = z.object({
  jobs: z
    .array(submitJobInput, { error: "jobs must be an array of job submissions" })
    .min(1, "jobs must hold at least one job")
    .max(MAX_BATCH_JOBS, `a batch holds at most ${MAX_BATCH_JOBS.toLocaleString("en-US")} jobs; split it`)
    .describe(`Up to ${MAX_BATCH_JOBS} job submissions, each as for POST /jobs`),
});
export type SubmitJobBatchInput = z.input<typeof submitJobBatchInput>;
export type SubmitJobBatch = z.output<typeof submitJobBatchInput>;

export const jobIdInput = z.object({
  id: z.coerce.number({ error: "job id must be a number" }).int().positive("job id must be positive"),
});

export const listJobsInput = z.object({
  scope: z.enum(["mine", "all"]).default("mine"),
  state: z.enum(JOB_STATES).optional(),
  active: z.boolean().optional(),
  cluster: z.string().optional(),
  limit: z.number().int().min(1).max(1000).default(100),
});
export type ListJobsInput = z.input<typeof listJobsInput>;

/** What the API returns for a job (REST and tRPC). */
export const jobView = z.object({
  id: z.number().int(),
  name: z.string(),
  cluster: z.string(),
  budget: z.string(),
  user: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  gpus: z.number().int(),
  minRuntime: z.number().int(),
  maxRuntime: z.number().int().nullable(),
  resumable: z.boolean(),
  requeue: z.boolean(),
  priority: z.number().int(),
  gracePeriod: z.number().int().nullable(),
  command: z.string(),
  /** Values are "***" for operators; {} with the command hidden for those who may not read the job. */
  env: z.record(z.string(), z.string()),
  /** Names of the secret variables; their values are never returned. */
  secretEnvNames: z.array(z.string()),
  state: z.enum(JOB_STATES),
  submittedAt: z.string(),
  queuedAt: z.string(),
  startedAt: z.string().nullable(),
  protectedUntil: z.string().nullable(),
  graceUntil: z.string().nullable(),
  finishedAt: z.string().nullable(),
  exitCode: z.number().int().nullable(),
  requeueCount: z.number().int(),
  heldBy: z.string().nullable(),
  reason: z
    .object({ code: z.string(), sentence: z.string(), position: z.number().int().nullable(), details: z.unknown() })
    .nullable(),
  lane: z.enum(["DEBUG", "ALLOCATED", "UNALLOCATED"]),
});
export type JobView = z.infer<typeof jobView>;

export interface ContractPolicy {
  debugMaxRuntime: number;
  debugMaxGpus: number;
  gracePeriod: number;
  unallocatedGracePeriod: number;
}
const SPEC_DEFAULTS: ContractPolicy = { debugMaxRuntime: 900, debugMaxGpus: 8, gracePeriod: 120, unallocatedGracePeriod: 10 };

/** The contract in plain words (SPEC §2 terms), for the form, the CLI and job pages. */
export function explainContract(
  c: {
    gpus: number;
    minRuntime: number;
    maxRuntime?: number | null;
    resumable: boolean;
    requeue?: boolean;
    gracePeriod?: number | null;
  },
  policy: ContractPolicy = SPEC_DEFAULTS,
): { lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED"; headline: string; sentences: string[] } {
  const sentences: string[] = [];
  const max = c.maxRuntime ?? null;
  const debug = max !== null && max <= policy.debugMaxRuntime && c.gpus <= policy.debugMaxGpus;
  const requeued = c.resumable || c.requeue === true;
  const allocated = c.minRuntime > 0;
  const grace = c.gracePeriod ?? (allocated ? policy.gracePeriod : policy.unallocatedGracePeriod);
  let lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  let headline: string;
  if (debug) {
    lane = "DEBUG";
    headline = `Debug lane: goes ahead of regular work and is killed at ${formatDuration(max!)}.`;
    sentences.push(`Charged to its budget like any allocated job; at most ${policy.debugMaxGpus} debug GPUs per person at once.`);
    if (allocated) sentences.push(`Protected for ${formatDuration(Math.min(c.minRuntime, max!))} after it starts.`);
  } else if (allocated) {
    lane = "ALLOCATED";
    headline = `Protected for ${formatDuration(c.minRuntime)} after each start, then interruptible.`;
    sentences.push(
      `Allocated occupancy: charged to the budget. Nothing preempts it for ${formatDuration(c.minRuntime)}; after that a budget further below its share may preempt it.`,
    );
  } else {
    lane = "UNALLOCATED";
    headline = "Unallocated: runs free on idle GPUs and may be preempted at any moment.";
    sentences.push("Never charged to the budget. Allocated work takes its GPUs whenever it needs them.");
  }
  if (!debug) {
    sentences.push(
      requeued
        ? `If preempted it gets SIGTERM, ${formatDuration(grace)} to save its state, then is requeued with its original submit time${c.resumable ? " (resumable)" : ""}.`
        : `If preempted it gets SIGTERM and ${formatDuration(grace)} before SIGKILL, and is not requeued (not resumable).`,
    );
  }
  if (max !== null && !debug) sentences.push(`Killed after ${formatDuration(max)} of running.`);
  return { lane, headline, sentences };
}
