import { classifyJob, defaultPolicy } from "@tranche/scheduler-core";
import { z } from "zod";
import { duration, formatExactDuration } from "./duration";
import { strictObject, text, typeError } from "./input";
import { jobNameInput } from "./job-name";
import { jobRuleFields } from "./job-rules";
import { nodeListFields, nodeListsOverlap } from "./node-list";
import { LIMITS, formatBytes, utf8Bytes } from "./limits";
import { JOB_KINDS, sessionView } from "./session";

// In a file without zod, so the words of contracts/format may use them (array-words.ts).
import { JOB_STATES, type JobState } from "./job-states";
export { JOB_STATES, type JobState };
export const ACTIVE_JOB_STATES = ["PENDING", "HELD", "RUNNING", "STOPPING"] as const satisfies readonly JobState[];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const int = (n: number) => n.toLocaleString("en-US");

/**
 * Variables Tranche sets in every job's environment, over whatever the job's own env says (the node
 * agent's runner.ts; the array ones at submit): a job that set one would see another value, and its
 * page would show one the job never saw. Refused at submit, naming them. TRANCHE_FAKE_GPU_UTIL is read,
 * not set, and stays allowed.
 */
export const RESERVED_ENV: Readonly<Record<string, string>> = {
  CUDA_VISIBLE_DEVICES: "set by the node agent for each job (the GPUs it was given)",
  TRANCHE_JOB_ID: "set by the node agent for each job (its id)",
  TRANCHE_JOB_NAME: "set by the node agent for each job (its name)",
  TRANCHE_SEGMENT_ID: "set by the node agent for each job (this run of it)",
  TRANCHE_NODE_NAME: "set by the node agent for each job (the node it runs on)",
  TRANCHE_NODES: "set by the node agent for each job (all of its nodes)",
  TRANCHE_NODE_RANK: "set by the node agent for each job (this node's index among its nodes)",
  TRANCHE_NUM_NODES: "set by the node agent for each job (how many nodes it has)",
  TRANCHE_GPUS: "set by the node agent for each job (its GPUs on this node)",
  TRANCHE_GRACE_PERIOD: "set by the node agent for each job (seconds between SIGTERM and SIGKILL)",
  TRANCHE_JOB_DIR: "set by the node agent for each job (its working folder)",
  TRANCHE_CHECKPOINT_DIR: "set by the node agent for each job (its checkpoint folder)",
  TRANCHE_RESTART_COUNT: "set by the node agent for each job (times it was requeued before this run)",
  TRANCHE_ARRAY_INDEX: "set by Tranche for each task of a job array (its index)",
  TRANCHE_ARRAY_JOB_ID: "set by Tranche for each task of a job array (the array's id)",
};

/**
 * A JSON object's own "__proto__" key: a valid shell name, but a plain object cannot hold it (assigning
 * it sets the prototype), so zod's record dropped the variable without a word. Refused by name instead.
 */
const PROTO_KEY = "__proto__";

/** A job's environment: names as in a shell, and bounded so the job stays launchable (LIMITS). */
const envRecord = z.record(z.string(), text("environment variable values")).superRefine((env, ctx) => {
  const entries = Object.entries(env);
  if (entries.length > LIMITS.envVars)
    ctx.addIssue({
      code: "custom",
      message: `env holds ${int(entries.length)} variables; at most ${int(LIMITS.envVars)}`,
    });
  let total = 0;
  for (const [k, v] of entries) {
    total += utf8Bytes(k) + utf8Bytes(v) + 1;
    if (Object.hasOwn(RESERVED_ENV, k))
      ctx.addIssue({ code: "custom", path: [k], message: `${k} is ${RESERVED_ENV[k]}; remove it` });
    else if (!ENV_NAME.test(k))
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `environment variable names are letters, digits and _, not starting with a digit: '${k.slice(0, 64)}'`,
      });
    else if (utf8Bytes(k) > LIMITS.envNameBytes)
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `environment variable name '${k.slice(0, 32)}...' is longer than ${formatBytes(LIMITS.envNameBytes)}`,
      });
    if (utf8Bytes(v) > LIMITS.envValueBytes)
      ctx.addIssue({
        code: "custom",
        path: [k],
        message: `environment variable ${k.slice(0, 64)} is ${formatBytes(utf8Bytes(v))}; a value holds at most ${formatBytes(LIMITS.envValueBytes)}`,
      });
  }
  if (total > LIMITS.envTotalBytes && entries.every(([, v]) => utf8Bytes(v) <= LIMITS.envValueBytes))
    ctx.addIssue({
      code: "custom",
      message: `env is ${formatBytes(total)} in all; a job's environment holds at most ${formatBytes(LIMITS.envTotalBytes)}`,
    });
});

/** The environment as given, checked for a "__proto__" key before the record drops it. */
const envInput = z.preprocess((raw, ctx) => {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw) && Object.hasOwn(raw, PROTO_KEY))
    ctx.issues.push({
      code: "custom",
      input: raw,
      path: [PROTO_KEY],
      message: `${PROTO_KEY} cannot be an environment variable name (the server cannot hold it in an object); rename it`,
    });
  return raw;
}, envRecord);

/**
 * One default for every entry point (form, CLI, REST): not resumable. Saying a job can restart from
 * its checkpoints is a promise only its author can make.
 */
export const RESUMABLE_DEFAULT = false;

/**
 * A job submission (SPEC §2 contract), shared by the form, tRPC, REST `POST /api/v1/jobs` and the CLI.
 * Checks that need the cluster (more GPUs than it has, whole nodes, the minRuntime cap) and the
 * caller (may they charge this budget) are made by the domain's submitJob, with the same wording.
 * Strict: an unknown field is refused, naming it. Sizes are bounded (LIMITS).
 */
export const submitJobInput = strictObject(
  {
    cluster: text("cluster")
      .trim()
      .min(1, "cluster is required")
      .max(LIMITS.keyChars, `cluster is longer than ${int(LIMITS.keyChars)} characters`)
      .describe("Cluster name, e.g. h100"),
    budget: text("budget")
      .trim()
      .min(1, "budget is required")
      .max(LIMITS.keyChars, `budget is longer than ${int(LIMITS.keyChars)} characters`)
      .describe("Budget path (a leaf of the budget tree), e.g. lab/language/pretraining"),
    gpus: z
      .number({ error: typeError("gpus", "The number of GPUs must be a number", "The number of GPUs is required") })
      .int("The number of GPUs must be a whole number")
      .min(1, "The number of GPUs must be at least 1")
      .max(LIMITS.jobGpus, `The number of GPUs must be at most ${int(LIMITS.jobGpus)}`)
      .describe("GPUs, all on one node, or whole nodes"),
    minRuntime: duration("minRuntime", "2h or 0", "Minimum runtime").describe(
      "Protected time after each start (seconds or e.g. 2h). 0 = unallocated work: free, preemptible at any moment",
    ),
    maxRuntime: duration("maxRuntime", "2h", "Maximum runtime")
      .refine((v) => v > 0, "Maximum runtime must be positive")
      .nullish()
      .describe("The job is killed after this long. <= 15 min and <= 8 GPUs puts it in the debug lane"),
    resumable: z
      .boolean({ error: typeError("resumable", "resumable must be true or false") })
      .default(RESUMABLE_DEFAULT)
      .describe("It restarts from its own checkpoints: requeued after preemption"),
    priority: z
      .number({ error: typeError("priority", "Priority must be a number", "Priority is required") })
      .int("Priority must be a whole number")
      .min(-1000, "Priority must be between -1000 and 1000")
      .max(1000, "Priority must be between -1000 and 1000")
      .default(0)
      .describe("Orders jobs only within the same budget; higher first"),
    requeue: z
      .boolean({ error: typeError("requeue", "requeue must be true or false") })
      .optional()
      .describe("A non-resumable job asks to be requeued after preemption anyway"),
    gracePeriod: duration("gracePeriod", "2m", "Grace period")
      .nullish()
      .describe("Seconds between SIGTERM and SIGKILL when preempted (at most 10 min)"),
    command: text("command")
      .trim()
      .min(1, "command is required")
      .max(LIMITS.commandChars, `command is longer than ${int(LIMITS.commandChars)} characters`),
    env: envInput.default({}).describe("Environment variables for the job's processes"),
    secretEnv: envInput
      .default({})
      .describe(
        "Environment variables whose values are handed to the job's processes but never shown (to anyone) or logged after submit",
      ),
    name: jobNameInput
      .optional()
      .describe("Job name; without one, the program's name from the command (./train.sh --lr 1: train.sh)"),
    idempotencyKey: text("idempotencyKey")
      .min(1, "idempotencyKey must not be empty")
      .max(LIMITS.keyChars, `idempotencyKey is longer than ${int(LIMITS.keyChars)} characters`)
      .optional()
      .describe("Retries with the same key return the same job (keys are per user)"),
    ...jobRuleFields,
    ...nodeListFields,
  },
  "a job submission",
).superRefine((job, ctx) => {
  const overlap = nodeListsOverlap(job.nodes, job.excludeNodes);
  if (overlap) ctx.addIssue({ code: "custom", path: ["excludeNodes"], message: overlap });
  for (const k of Object.keys(job.secretEnv))
    if (Object.hasOwn(job.env, k))
      ctx.addIssue({ code: "custom", path: ["secretEnv", k], message: `${k} is in both env and secretEnv: give it once` });
  // The job's processes get both: together they must stay launchable.
  const all = [...Object.entries(job.env), ...Object.entries(job.secretEnv)];
  const total = all.reduce((t, [k, v]) => t + utf8Bytes(k) + utf8Bytes(v) + 1, 0);
  if (all.length > LIMITS.envVars)
    ctx.addIssue({
      code: "custom",
      path: ["secretEnv"],
      message: `env and secretEnv hold ${int(all.length)} variables together; at most ${int(LIMITS.envVars)}`,
    });
  else if (total > LIMITS.envTotalBytes)
    ctx.addIssue({
      code: "custom",
      path: ["secretEnv"],
      message: `env and secretEnv are ${formatBytes(total)} together; a job's environment holds at most ${formatBytes(LIMITS.envTotalBytes)}`,
    });
});
export type SubmitJobInput = z.input<typeof submitJobInput>;
export type SubmitJob = z.output<typeof submitJobInput>;

/** The most jobs one batch submission may hold. */
export const MAX_BATCH_JOBS = LIMITS.batchJobs;

/**
 * A batch submission (`POST /api/v1/jobs/batch`, `tranche submit --file`): up to 1,000 jobs, each
 * checked by `submitJobInput`; stored all together or not at all. Errors name the item: `jobs.3.gpus`.
 */
export const submitJobBatchInput = strictObject(
  {
    jobs: z
      .array(submitJobInput, { error: typeError("jobs", "jobs must be an array of job submissions") })
      .min(1, "jobs must hold at least one job")
      .max(MAX_BATCH_JOBS, `a batch holds at most ${int(MAX_BATCH_JOBS)} jobs; split it`)
      .describe(`Up to ${MAX_BATCH_JOBS} job submissions, each as for POST /jobs`),
  },
  "a batch submission",
);
export type SubmitJobBatchInput = z.input<typeof submitJobBatchInput>;
export type SubmitJobBatch = z.output<typeof submitJobBatchInput>;

/** Jobs a list holds when its query names no limit. */
export const JOB_LIST_DEFAULT = 100;

const listJobsShape = {
  scope: z.enum(["mine", "all"], { error: typeError("scope", "scope must be mine or all") }).default("mine"),
  state: z.enum(JOB_STATES, { error: `state must be one of ${JOB_STATES.join(", ")}` }).optional(),
  active: z.boolean({ error: typeError("active", "active must be true or false") }).optional(),
  cluster: text("cluster")
    .max(LIMITS.keyChars, `cluster is longer than ${int(LIMITS.keyChars)} characters`)
    .optional(),
  /** The tasks of one job array (its id, its first task's id). */
  array: z
    .number({ error: typeError("array", "array must be a job array's id") })
    .int("array must be a whole number")
    .positive("array must be a job array's id")
    .optional(),
  limit: z
    .number({ error: typeError("limit", "limit must be a number") })
    .int("limit must be a whole number")
    .min(1, "limit must be between 1 and 1000")
    .max(1000, "limit must be between 1 and 1000")
    .default(JOB_LIST_DEFAULT),
};

/**
 * "tasks": every task of an array is a job of the list. "rows": an array is one row of `arrays` (its tasks
 * counted by state), so a 100-task array takes one row of the limit.
 */
const arraysAs = (byDefault: "tasks" | "rows") =>
  z.enum(["tasks", "rows"], { error: typeError("arrays", "arrays must be tasks or rows") }).default(byDefault);

/** A job list's query (GET /jobs, job.list): arrays as tasks unless asked for rows, as before. */
export const listJobsInput = strictObject({ ...listJobsShape, arrays: arraysAs("tasks") }, "a job list query");
export type ListJobsInput = z.input<typeof listJobsInput>;
/** job.rows' query: the same, arrays as rows unless asked for tasks (as GET /jobs?arrays=tasks answers them). */
export const listJobRowsInput = strictObject({ ...listJobsShape, arrays: arraysAs("rows") }, "a job list query");

/** What the API returns for a job (REST and tRPC). */
export const jobView = z.object({
  id: z.number().int(),
  name: z.string(),
  cluster: z.string(),
  budget: z.string(),
  /** email: null for those who may not read the job's command (see command), who see the name only. */
  user: z.object({ id: z.string(), name: z.string(), email: z.string().nullable() }),
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
  /** When the job was flagged as likely squatting (its GPUs under 5% busy for 30 minutes); null when it is not. */
  squattingSince: z.string().nullable(),
  /** The last checkpoint the job reported (by touching $TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint). */
  lastCheckpointAt: z.string().nullable(),
  /**
   * The core's start forecast for a pending job (ISO 8601): when it expects the job to start if nothing new
   * arrives, an upper bound on the wait like Slurm's `squeue --start`; for the job holding the latest
   * cycle's reservation, that reservation's start. Null when unknown (see `estimatedStartWhy`), when no
   * forecast was made yet, or when the job is not pending.
   */
  estimatedStartAt: z.string().nullable(),
  /**
   * In plain words: why `estimatedStartAt` is null, or, for a start the latest cycle's reservation gives
   * (the job holds it), where it comes from ("when the GPUs reserved for it free up"); null for a start
   * the forecast gives, and when the job is not pending.
   */
  estimatedStartWhy: z.string().nullable(),
  /** The jobs whose GPUs it is expected to take (running now or starting ahead of it); never one that has ended. */
  estimatedStartAfter: z.array(z.number().int()),
  /** When that forecast was made (for a reservation's start, when the cycle that made it ran). */
  estimatedAt: z.string().nullable(),
  reason: z
    .object({ code: z.string(), sentence: z.string(), position: z.number().int().nullable(), details: z.unknown() })
    .nullable(),
  lane: z.enum(["DEBUG", "ALLOCATED", "UNALLOCATED"]),
  /** A task of a job array: the array's id (its first task's id), this task's index and the spec. */
  array: z.object({ id: z.number().int(), index: z.number().int(), spec: z.string() }).nullable(),
  /** `--after`: the jobs it waits for and how ("OK": completes successfully, "ANY": ends). */
  after: z.array(z.object({ jobId: z.number().int(), condition: z.enum(["OK", "ANY"]) })),
  /** `--nodelist`: the only nodes it may run on; empty for any node. */
  nodes: z.array(z.string()),
  /** `--exclude`: nodes it must never run on; empty for none. */
  excludeNodes: z.array(z.string()),
  /** `--retries`: how many retries it may have, and how many it has had. */
  retries: z.object({ max: z.number().int(), used: z.number().int() }),
  /** BATCH, or INTERACTIVE: a session (see `session`). */
  kind: z.enum(JOB_KINDS),
  /** An interactive session's server and where it is; null for batch jobs and for readers who are not its owner. */
  session: sessionView.nullable(),
});
export type JobView = z.infer<typeof jobView>;

/**
 * A job array as one row of a job list (listJobsInput's arrays: "rows"): what it is, where its tasks
 * stand (counted by the database) and when one of them last started, ended or was submitted.
 */
export interface ArrayRowView {
  /** The array's id: its first task's id (rows sort by it among the jobs' ids). */
  id: number;
  name: string;
  spec: string;
  cluster: string;
  budget: string;
  user: { id: string; name: string };
  /** GPUs each task asks for. */
  gpus: number;
  tasks: number;
  states: Partial<Record<JobState, number>>;
  lastActivityAt: string;
}

/** A job list with arrays as rows: its single jobs and its arrays, together at most the list's limit. */
export interface JobRowsView {
  jobs: JobView[];
  arrays: ArrayRowView[];
}

export interface ContractPolicy {
  debugMaxRuntime: number;
  debugMaxGpus: number;
  gracePeriod: number;
  unallocatedGracePeriod: number;
  maxGracePeriod: number;
}
const SPEC_DEFAULTS: ContractPolicy = defaultPolicy;

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
  // The core's classification, for a budget with an allocation on the cluster (the form cannot know more).
  const cls = classifyJob(
    { gpus: c.gpus, minRuntime: c.minRuntime, maxRuntime: max, gracePeriod: c.gracePeriod ?? null },
    true,
    policy,
  );
  const debug = cls.lane === "DEBUG";
  const requeued = c.resumable || c.requeue === true;
  const allocated = cls.charged;
  const grace = cls.grace;
  let lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  let headline: string;
  if (debug) {
    lane = "DEBUG";
    headline = `Debug lane: goes ahead of regular work and is killed at ${formatExactDuration(max!)}.`;
    sentences.push(`Charged to its budget like any allocated job; at most ${policy.debugMaxGpus} debug GPUs per person at once.`);
    sentences.push(`Protected for ${formatExactDuration(cls.protection)} after it starts.`);
  } else if (allocated) {
    lane = "ALLOCATED";
    headline = `Protected for ${formatExactDuration(cls.protection)} after each start, then interruptible.`;
    sentences.push(
      `Allocated occupancy: charged to the budget. Nothing preempts it for ${formatExactDuration(c.minRuntime)}; after that a budget further below its share may preempt it.`,
    );
  } else {
    lane = "UNALLOCATED";
    headline = "Unallocated: runs free on idle GPUs and may be preempted at any moment.";
    sentences.push("Never charged to the budget. Allocated work takes its GPUs whenever it needs them.");
  }
  if (!debug) {
    sentences.push(
      requeued
        ? `If preempted it is asked to stop and has ${formatExactDuration(grace)} to save its state, then is requeued with its original submit time${c.resumable ? " (resumable)" : ""}.`
        : `If preempted it is asked to stop and has ${formatExactDuration(grace)} before it is stopped by force, and is not requeued (not resumable).`,
    );
  }
  if (max !== null && !debug) sentences.push(`Killed after ${formatExactDuration(max)} of running.`);
  return { lane, headline, sentences };
}
