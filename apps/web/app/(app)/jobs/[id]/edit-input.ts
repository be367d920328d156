import {
  missingUnitProblem,
  parseDuration,
  runtimeOrderProblem,
  updateJobInput,
  type JobView,
  type UpdateJobInput,
} from "@tranche/contracts";

/** The Edit form of a waiting job: its fields as typed, pre-filled from the job, and the change they make. */

export interface EditState {
  gpus: string;
  minRuntime: string;
  maxRuntime: string;
  priority: string;
  name: string;
  budget: string;
}

export type EditErrors = Record<string, string>;

/** Seconds as the submit form takes them: 5400 -> "1h30m", 0 -> "0". */
export function durationText(seconds: number): string {
  if (seconds === 0) return "0";
  let s = seconds;
  let out = "";
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0) out += `${n}${unit}`;
  }
  return out;
}

export function editStateOf(job: JobView): EditState {
  return {
    gpus: String(job.gpus),
    minRuntime: durationText(job.minRuntime),
    maxRuntime: job.maxRuntime === null ? "" : durationText(job.maxRuntime),
    priority: String(job.priority),
    name: job.name,
    budget: job.budget,
  };
}

/** The labels of the submit form, which the errors name. */
const LABELS = { minRuntime: "Minimum runtime", maxRuntime: "Maximum runtime" } as const;

/**
 * Only the fields that differ from the job go in the change (an empty maximum runtime: none), checked
 * by the server's own schema; a bare number in a duration is refused as the submit form refuses it.
 */
export function editChange(job: JobView, f: EditState): { input?: UpdateJobInput; errors: EditErrors } {
  const errors: EditErrors = {};
  for (const k of ["minRuntime", "maxRuntime"] as const) {
    const problem = missingUnitProblem(LABELS[k], f[k]);
    if (problem !== null) errors[k] = problem;
  }
  if (Object.keys(errors).length > 0) return { errors };
  const num = (s: string) => (s.trim() === "" ? undefined : Number(s));
  const min = parseDuration(f.minRuntime);
  const max = f.maxRuntime.trim() === "" ? null : parseDuration(f.maxRuntime);
  const input: UpdateJobInput = {
    ...(num(f.gpus) !== job.gpus ? { gpus: num(f.gpus) as number } : {}),
    ...(min !== job.minRuntime ? { minRuntime: f.minRuntime.trim() } : {}),
    ...(max !== job.maxRuntime ? { maxRuntime: f.maxRuntime.trim() === "" ? null : f.maxRuntime.trim() } : {}),
    ...(num(f.priority) !== job.priority ? { priority: num(f.priority) as number } : {}),
    ...(f.name.trim() !== job.name ? { name: f.name.trim() } : {}),
    ...(f.budget.trim() !== job.budget ? { budget: f.budget.trim() } : {}),
  };
  if (Object.keys(input).length === 0) return { errors: { form: "Nothing was changed: edit a field, or close the form." } };
  const parsed = updateJobInput.safeParse(input);
  if (!parsed.success) {
    for (const i of parsed.error.issues) errors[String(i.path[0] ?? "form")] ??= i.message;
    return { errors };
  }
  const order = runtimeOrderProblem(parsed.data.minRuntime ?? job.minRuntime, max);
  if (order) return { errors: { maxRuntime: order } };
  return { input, errors: {} };
}
