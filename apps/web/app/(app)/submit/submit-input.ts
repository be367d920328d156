import {
  RESUMABLE_DEFAULT,
  expandNodeList,
  missingUnitProblem,
  runtimeOrderProblem,
  submitJobInput,
  type SubmitJobInput,
} from "@tranche/contracts";

/** The submit form's fields as typed, and what they become: a submission, or errors by field. */

export type Errors = Record<string, string>;

export interface FormState {
  cluster: string;
  budget: string;
  gpus: string;
  minRuntime: string;
  debug: boolean;
  maxRuntime: string;
  resumable: boolean;
  requeue: boolean;
  priority: string;
  gracePeriod: string;
  command: string;
  env: string;
  secretEnv: string;
  name: string;
  array: string;
  after: string;
  retries: string;
  /** Slurm's host list, as `tranche submit --nodelist` reads it: gpu-[03-05],gpu-07. */
  nodes: string;
  excludeNodes: string;
}

/** A new job's form as it opens: one GPU, protected for 2 h, the cluster and budget still to choose. */
export const NEW_JOB_FORM: FormState = {
  cluster: "",
  budget: "",
  gpus: "1",
  minRuntime: "2h",
  debug: false,
  maxRuntime: "",
  resumable: RESUMABLE_DEFAULT,
  requeue: false,
  priority: "0",
  gracePeriod: "",
  command: "",
  env: "",
  secretEnv: "",
  name: "",
  array: "",
  after: "",
  retries: "0",
  nodes: "",
  excludeNodes: "",
};

/** KEY=VALUE lines -> object; a malformed line is an error naming the line. */
function parseEnv(text: string, what = "env"): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    // A secret's line is not echoed back: it may be the value itself, pasted.
    if (eq <= 0) return { error: `${what} line ${i + 1}${what === "env" ? ` '${line}'` : ""} is not KEY=VALUE` };
    env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  return { env };
}

/**
 * The submission the fields make, and the problems of the fields it could not read (env lines, node
 * ranges): such a field goes in empty, so the schema still checks every other field.
 */
function toInput(f: FormState): { input: SubmitJobInput; errors: Errors } {
  const errors: Errors = {};
  const envOf = (k: "env" | "secretEnv") => {
    const r = parseEnv(f[k], k);
    if ("error" in r) errors[k] = r.error;
    return "env" in r ? r.env : {};
  };
  const env = envOf("env");
  const secretEnv = envOf("secretEnv");
  const num = (s: string) => (s.trim() === "" ? undefined : Number(s));
  const lists: { nodes?: string[]; excludeNodes?: string[] } = {};
  for (const [k, label] of [
    ["nodes", "Run only on nodes"],
    ["excludeNodes", "Never on nodes"],
  ] as const) {
    if (!f[k].trim()) continue;
    const names = expandNodeList(f[k], label);
    if (typeof names === "string") errors[k] = names;
    else lists[k] = names;
  }
  return {
    errors,
    input: {
      cluster: f.cluster,
      budget: f.budget,
      gpus: num(f.gpus) as number,
      minRuntime: f.minRuntime.trim(),
      maxRuntime: f.debug || f.maxRuntime.trim() ? f.maxRuntime.trim() : null,
      resumable: f.resumable,
      requeue: f.resumable ? undefined : f.requeue,
      priority: (num(f.priority) ?? 0) as number,
      gracePeriod: f.gracePeriod.trim() ? f.gracePeriod.trim() : null,
      command: f.command,
      env,
      secretEnv,
      ...(f.name.trim() ? { name: f.name.trim() } : {}),
      ...(f.array.trim() ? { array: f.array.trim() } : {}),
      after: f.after
        .split(/[\s,]+/)
        .map((a) => a.trim())
        .filter((a) => a !== ""),
      retries: (num(f.retries) ?? 0) as number,
      ...lists,
    },
  };
}

/** The duration fields and the words their errors name them by (the form's labels). */
const DURATIONS = [
  ["minRuntime", "Minimum runtime"],
  ["maxRuntime", "Maximum runtime"],
  ["gracePeriod", "Grace period"],
] as const;

/**
 * The duration fields written as a bare number: refused, as the CLI refuses them ("90" was taken as 90 s
 * where a Slurm user means 90 min). The form says so as soon as it is typed, and its preview reads no
 * time from such a field.
 */
export function unitProblems(f: FormState): Errors {
  const units: Errors = {};
  for (const [k, label] of DURATIONS) {
    const problem = missingUnitProblem(label, f[k]);
    if (problem !== null) units[k] = problem;
  }
  return units;
}

/** The fields that show their own problem; an issue naming another (a checkbox) goes above the form. */
export const FORM_FIELDS: ReadonlySet<string> = new Set([
  ...Object.keys(NEW_JOB_FORM).filter((k) => !["debug", "resumable", "requeue"].includes(k)),
  "form",
]);

/**
 * Every field's problem at once, from one submit: the units, the lines and ranges, the schema's issues
 * (the first for each field) and the runtimes' order, so a researcher fixes them all before the next try.
 * A field keeps the first problem found for it.
 */
export function validate(f: FormState): { input?: SubmitJobInput; errors: Errors } {
  const errors: Errors = { ...unitProblems(f) };
  const r = toInput(f);
  const add = (k: string, message: string) => {
    const field = FORM_FIELDS.has(k) ? k : "form";
    errors[field] ??= message;
  };
  for (const [k, message] of Object.entries(r.errors)) add(k, message);
  const parsed = submitJobInput.safeParse(r.input);
  if (!parsed.success) for (const i of parsed.error.issues) add(String(i.path[0] ?? "form"), i.message);
  if (f.debug && !f.maxRuntime.trim()) add("maxRuntime", "Maximum runtime is required in the debug lane (at most 15 min)");
  if (parsed.success) {
    const order = runtimeOrderProblem(parsed.data.minRuntime, parsed.data.maxRuntime ?? null);
    if (order) add("maxRuntime", order);
  }
  return Object.keys(errors).length === 0 ? { input: r.input, errors } : { errors };
}

/** Fields with a problem, the form's own alert not counted. */
export const fieldCount = (e: Errors): number => Object.keys(e).filter((k) => k !== "form").length;

/**
 * The server's schema issues by field, all of them (its first issue per field): "env.FOO" is the env
 * box's; a field the form does not have goes above the form, joined with the others there.
 */
export function serverFieldErrors(issues: readonly { path: string; message: string }[]): Errors {
  const errors: Errors = {};
  for (const i of issues) {
    const k = i.path.split(".")[0] || "form";
    if (!FORM_FIELDS.has(k) || k === "form") errors.form = errors.form ? `${errors.form}; ${i.message}` : i.message;
    else errors[k] ??= i.message;
  }
  return errors;
}
