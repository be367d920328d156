import { z } from "zod";
import { strictObject, text, typeError } from "./input";

/** The most tasks one array may hold (Slurm's MaxArraySize is of this order). */
export const MAX_ARRAY_TASKS = 10_000;
/** The largest index a task may carry. */
export const MAX_ARRAY_INDEX = 1_000_000;
/** The most jobs one job may depend on. */
export const MAX_DEPENDENCIES = 100;
/** `--retries N`: 0..10. */
export const MAX_RETRIES = 10;

export interface ArraySpec {
  /** The task indexes, ascending, each once. */
  indexes: number[];
  /** `%N`: at most N tasks run at once; null = no cap. */
  maxRunning: number | null;
}

const int = (n: number) => n.toLocaleString("en-US");

/**
 * `0-99%10`, `1,3,5-7`, `0-15:4` (Slurm's syntax): indexes and ranges (with an optional step), then
 * optionally `%N`, the most tasks running at once. Returns the tasks, or a sentence saying what is wrong.
 */
export function parseArraySpec(spec: string): ArraySpec | string {
  const m = /^([^%]*)(?:%(.*))?$/.exec(spec.trim())!;
  const body = m[1]!.trim();
  if (body === "") return "array must list indexes, e.g. 0-99 or 1,3,5-7 (optionally %N: at most N at once)";
  let maxRunning: number | null = null;
  if (m[2] !== undefined) {
    if (!/^\d+$/.test(m[2].trim())) return `array limit after % must be a whole number, not '${m[2].slice(0, 20)}'`;
    maxRunning = Number(m[2].trim());
    if (maxRunning < 1) return "array limit after % must be at least 1";
  }
  const seen = new Set<number>();
  for (const part of body.split(",")) {
    const r = /^\s*(\d+)(?:\s*-\s*(\d+)(?::(\d+))?)?\s*$/.exec(part);
    if (!r) return `array part '${part.trim().slice(0, 20)}' is not an index or a range like 5-7 (or 0-15:4)`;
    const from = Number(r[1]);
    const to = r[2] === undefined ? from : Number(r[2]);
    const step = r[3] === undefined ? 1 : Number(r[3]);
    if (to > MAX_ARRAY_INDEX || from > MAX_ARRAY_INDEX) return `array indexes go up to ${int(MAX_ARRAY_INDEX)}`;
    if (to < from) return `array range ${from}-${to} runs backwards`;
    if (step < 1) return `array step in '${part.trim()}' must be at least 1`;
    // Counted before expanding, so 0-999999 is refused without building a million numbers.
    if (seen.size + Math.floor((to - from) / step) + 1 > MAX_ARRAY_TASKS * 2 + 1)
      return `array has more than ${int(MAX_ARRAY_TASKS)} tasks; split it`;
    for (let i = from; i <= to; i += step) seen.add(i);
  }
  if (seen.size > MAX_ARRAY_TASKS)
    return `array has ${int(seen.size)} tasks; at most ${int(MAX_ARRAY_TASKS)} per array: split it`;
  return { indexes: [...seen].sort((a, b) => a - b), maxRunning };
}

export interface DependencySpec {
  jobId: number;
  condition: "OK" | "ANY";
}

/** `81`, `81:ok`, `81:any` (also Slurm's `afterok:81`, `afterany:81`). */
export function parseDependency(spec: string): DependencySpec | string {
  const s = spec.trim();
  const slurm = /^after(ok|any):(\d+)$/i.exec(s);
  const ours = /^#?(\d+)(?::(ok|any))?$/i.exec(s);
  const id = slurm ? slurm[2]! : ours ? ours[1]! : null;
  if (id === null) return `dependency '${s.slice(0, 30)}' must be JOB, JOB:ok or JOB:any (e.g. 81:ok)`;
  const jobId = Number(id);
  if (jobId < 1 || jobId > 2_147_483_647) return `dependency '${s.slice(0, 30)}' names no possible job id`;
  const cond = (slurm ? slurm[1]! : (ours![2] ?? "ok")).toUpperCase() as "OK" | "ANY";
  return { jobId, condition: cond };
}

/** The submit fields of these rules (merged into submitJobInput). */
export const jobRuleFields = {
  array: text("array")
    .max(200, "array is longer than 200 characters")
    .superRefine((v, ctx) => {
      const r = parseArraySpec(v);
      if (typeof r === "string") ctx.addIssue({ code: "custom", message: r });
    })
    .optional()
    .describe(
      `A job array: indexes like 0-99 or 1,3,5-7, optionally %N for at most N running at once (e.g. 0-99%10); each task is a job with TRANCHE_ARRAY_INDEX in its env; at most ${int(MAX_ARRAY_TASKS)} tasks`,
    ),
  after: z
    .array(
      text("after").superRefine((v, ctx) => {
        const r = parseDependency(v);
        if (typeof r === "string") ctx.addIssue({ code: "custom", message: r });
      }),
      { error: "after must be a list of dependencies like ['81:ok', '94:any']" },
    )
    .max(MAX_DEPENDENCIES, `after holds at most ${MAX_DEPENDENCIES} dependencies`)
    .default([])
    .describe(
      "Jobs this one waits for: JOB or JOB:ok (it must complete successfully), JOB:any (it must end at all). An array's id means all its tasks",
    ),
  retries: z
    .number({ error: typeError("retries", "retries must be a number") })
    .int("retries must be a whole number")
    .min(0, "retries must be between 0 and 10")
    .max(MAX_RETRIES, "retries must be between 0 and 10")
    .default(0)
    .describe("Requeue a run that exits with a non-zero code up to this many times (0..10)"),
};

/** `PUT /api/v1/jobs/{id}/dependencies`: replaces a pending job's dependencies (`tranche depend`). */
export const setDependenciesInput = strictObject({ after: jobRuleFields.after }, "a dependency update");
export type SetDependenciesInput = z.input<typeof setDependenciesInput>;
