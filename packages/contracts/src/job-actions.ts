import { z } from "zod";
import { strictObject, text, typeError } from "./input";
import { INT32_MAX, LIMITS } from "./limits";

/** What one request may do to many jobs at once (`POST /jobs/actions`, `tranche cancel 41 42 43`). */
export const JOB_ACTIONS = ["cancel", "hold", "release"] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/**
 * The most jobs one such request acts on, by ids or by a filter. Each job takes its own short transaction,
 * so 1,000 keep the database a few seconds; a filter that selects more is refused, not cut short.
 */
export const MAX_JOB_ACTION_JOBS = 1000;

/** The states a filter selects by, as a person says them (without one: all three). */
export const JOB_ACTION_STATES = ["pending", "running", "held"] as const;

const int = (n: number) => n.toLocaleString("en-US");
const maxText = (field: string, chars: number) =>
  text(field)
    .min(1, `${field} must not be empty`)
    .max(chars, `${field} is longer than ${int(chars)} characters`);

const jobId = z
  .number({ error: typeError("ids", "ids must list job ids (numbers)") })
  .int("ids must list whole numbers")
  .positive("ids must list positive job ids")
  .max(INT32_MAX, `ids must list job ids of at most ${int(INT32_MAX)}`);

export const jobActionFilter = strictObject(
  {
    state: z.enum(JOB_ACTION_STATES, { error: "filter state must be pending, running or held" }).optional(),
    /** The job's name, exactly. */
    name: maxText("filter name", LIMITS.nameChars).optional(),
    cluster: maxText("filter cluster", LIMITS.keyChars).optional(),
    /** A budget's path, exactly. */
    budget: maxText("filter budget", LIMITS.keyChars).optional(),
    /** Everyone's jobs, not only the caller's: for those whom the action's one-job rule lets act on others' jobs. */
    everyone: z.boolean({ error: typeError("filter everyone", "filter everyone must be true or false") }).default(false),
  },
  "a job filter",
).refine((f) => f.state ?? f.name ?? f.cluster ?? f.budget, {
  message: "filter must name at least one of state, name, cluster or budget",
});
export type JobActionFilter = z.output<typeof jobActionFilter>;

export const jobActionInput = strictObject(
  {
    action: z.enum(JOB_ACTIONS, { error: typeError("action", "action must be cancel, hold or release") }),
    ids: z
      .array(jobId, { error: typeError("ids", "ids must be a list of job ids") })
      .min(1, "ids must list at least one job")
      .max(
        MAX_JOB_ACTION_JOBS,
        `ids lists more than ${int(MAX_JOB_ACTION_JOBS)} jobs: send at most ${int(MAX_JOB_ACTION_JOBS)} per request`,
      )
      .optional(),
    filter: jobActionFilter.optional(),
    /** With a filter: only say which jobs it selects now, changing nothing (the CLI's "Cancel 27 jobs?"). */
    dryRun: z.boolean({ error: typeError("dryRun", "dryRun must be true or false") }).default(false),
  },
  "a job action",
)
  .refine((i) => (i.ids === undefined) !== (i.filter === undefined), {
    message: "name the jobs by ids or by a filter, not both and not neither",
  })
  .refine((i) => !i.dryRun || i.filter !== undefined, { message: "dryRun previews a filter's jobs: send it with a filter" });
export type JobActionInput = z.input<typeof jobActionInput>;
export type JobActionRequest = z.output<typeof jobActionInput>;

/** A job the action was not applied to, and why, in words. */
export interface JobActionRefusal {
  id: number;
  reason: string;
}

export interface JobActionResult {
  action: JobAction;
  /** The jobs the action was applied to, in id order. */
  done: number[];
  refused: JobActionRefusal[];
}

/** A dry run's answer: the jobs the filter selects now, in id order. */
export interface JobActionPreview {
  action: JobAction;
  jobs: number[];
}
