/**
 * The trace: jobs as CSV rows (`id,submit,budget,user,cluster,gpus,duration,min_runtime,
 * max_runtime,resumable,priority`) or as the same fields inline in a scenario. Every row is checked
 * against the scenario (clusters, budget leaves, node sizes, the minRuntime cap); all problems are
 * collected with their line numbers and nothing is returned when there is one.
 */
import { clusterShape, validateJobContractOn } from "@tranche/scheduler-core";
import { durationProblem, parseDuration } from "./duration.js";
import { TRACE_DEFAULTS, type ClusterSpec, type SimJob } from "./types.js";

export const TRACE_COLUMNS = [
  "id",
  "submit",
  "budget",
  "user",
  "cluster",
  "gpus",
  "duration",
  "min_runtime",
  "max_runtime",
  "resumable",
  "priority",
] as const;
export type TraceColumn = (typeof TRACE_COLUMNS)[number];
const REQUIRED: ReadonlySet<TraceColumn> = new Set(["id", "submit", "budget", "gpus", "duration"]);

export interface TraceContext {
  readonly clusters: ReadonlyMap<string, ClusterSpec>;
  /** Leaf budget paths below the root (`nlp/pretrain`). */
  readonly budgets: ReadonlySet<string>;
  /** All budget-tree paths, to say "not a leaf" rather than "unknown". */
  readonly treePaths: ReadonlySet<string>;
  readonly maxMinRuntime: number;
}

export interface TraceResult {
  readonly jobs: SimJob[];
  readonly errors: string[];
}

type RawValue = string | number | boolean | null | undefined;

function isBlank(v: RawValue): boolean {
  return v === undefined || v === null || (typeof v === "string" && v.trim() === "");
}

/** The cluster's shape for the contract check, computed once per cluster (not once per row). */
type ClusterShape = ReturnType<typeof clusterShape>;
const shapes = new WeakMap<ClusterSpec, ClusterShape>();
function shapeOf(cluster: ClusterSpec): ClusterShape {
  let shape = shapes.get(cluster);
  if (!shape) {
    shape = clusterShape(Array.from({ length: cluster.nodes }, () => ({ gpuCount: cluster.gpusPerNode })));
    shapes.set(cluster, shape);
  }
  return shape;
}

/** Validates one row; pushes errors prefixed by `where` and returns the job when it is valid. */
export function validateJobRow(
  row: Readonly<Partial<Record<TraceColumn, RawValue>>>,
  where: string,
  ctx: TraceContext,
  errors: string[],
): SimJob | undefined {
  const before = errors.length;
  const fail = (msg: string): void => void errors.push(`${where}: ${msg}`);
  for (const col of REQUIRED) if (isBlank(row[col])) fail(`${col} is required`);
  if (errors.length > before) return undefined;

  const id = String(row.id).trim();
  const submit = parseDuration(row.submit);
  if (submit === null) fail(durationProblem("submit", row.submit));

  const budget = String(row.budget)
    .trim()
    .replace(/^\/+|\/+$/g, "");
  if (!ctx.budgets.has(budget)) {
    fail(
      ctx.treePaths.has(budget)
        ? `budget "${budget}" is not a leaf of the budget tree (jobs are charged to leaves)`
        : `unknown budget "${budget}"`,
    );
  }
  const user = isBlank(row.user) ? budget : String(row.user).trim();

  let cluster: ClusterSpec | undefined;
  if (isBlank(row.cluster)) {
    if (ctx.clusters.size === 1) cluster = [...ctx.clusters.values()][0];
    else fail(`cluster is required when the scenario has ${ctx.clusters.size} clusters`);
  } else {
    const name = String(row.cluster).trim();
    cluster = ctx.clusters.get(name);
    if (!cluster) fail(`unknown cluster "${name}"`);
  }

  const gpus = Number(typeof row.gpus === "string" ? row.gpus.trim() : row.gpus);
  if (!Number.isInteger(gpus) || gpus <= 0) {
    fail(`gpus "${String(row.gpus)}" must be a positive integer`);
  } else if (cluster) {
    const total = cluster.nodes * cluster.gpusPerNode;
    if (gpus > total) {
      fail(`gpus ${gpus} is more than cluster "${cluster.name}" has (${total})`);
    } else if (gpus > cluster.gpusPerNode && gpus % cluster.gpusPerNode !== 0) {
      fail(`gpus ${gpus} spans nodes but is not a multiple of the node size ${cluster.gpusPerNode} (SPEC R1)`);
    }
  }

  const duration = parseDuration(row.duration);
  if (duration === null || duration <= 0) {
    fail(`duration "${String(row.duration)}" must be a positive duration`);
  }

  let maxRuntime: number | null = null;
  if (!isBlank(row.max_runtime)) {
    const v = parseDuration(row.max_runtime);
    if (v === null || v <= 0) fail(`max_runtime "${String(row.max_runtime)}" must be a positive duration`);
    else maxRuntime = v;
  }

  let minRuntime = 0;
  if (isBlank(row.min_runtime)) {
    if (duration !== null) {
      minRuntime = Math.min(duration, TRACE_DEFAULTS.minRuntimeCap, ctx.maxMinRuntime, maxRuntime ?? Infinity);
    }
  } else {
    const v = parseDuration(row.min_runtime);
    if (v === null) fail(durationProblem("min_runtime", row.min_runtime));
    else if (v > ctx.maxMinRuntime) {
      fail(`min_runtime ${v}s is above the cap ${ctx.maxMinRuntime}s (policy.maxMinRuntime)`);
    } else minRuntime = v;
  }

  let resumable: boolean = TRACE_DEFAULTS.resumable;
  if (!isBlank(row.resumable)) {
    const v = typeof row.resumable === "string" ? row.resumable.trim().toLowerCase() : row.resumable;
    if (v === true || v === "true" || v === "1" || v === "yes" || v === 1) resumable = true;
    else if (v === false || v === "false" || v === "0" || v === "no" || v === 0) resumable = false;
    else fail(`resumable "${String(row.resumable)}" must be true/false, 1/0 or yes/no`);
  }

  let priority: number = TRACE_DEFAULTS.priority;
  if (!isBlank(row.priority)) {
    const v = Number(typeof row.priority === "string" ? row.priority.trim() : row.priority);
    if (!Number.isInteger(v)) fail(`priority "${String(row.priority)}" must be an integer`);
    else priority = v;
  }

  if (errors.length > before || !cluster || submit === null || duration === null) {
    return undefined;
  }
  // The contract checks every entry point shares (SPEC §6), from the core.
  const contract = validateJobContractOn(
    { gpus, minRuntime, maxRuntime, priority, resumable, requeueOnPreempt: false, gracePeriod: null },
    shapeOf(cluster),
    { maxMinRuntime: ctx.maxMinRuntime, maxGracePeriod: 600 },
  );
  if (!contract.ok) {
    for (const e of contract.errors) fail(e);
    return undefined;
  }
  return {
    id,
    submit,
    budget,
    user,
    cluster: cluster.name,
    gpus,
    duration,
    minRuntime,
    maxRuntime,
    resumable,
    priority,
  };
}

/** Splits one CSV line; supports double-quoted fields with `""` escapes (no embedded newlines). */
export function splitCsvLine(line: string): string[] | undefined {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let v = "";
      i++;
      for (;;) {
        if (i >= line.length) return undefined; // unterminated quote
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            v += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else v += line[i++];
      }
      if (i < line.length && line[i] !== ",") return undefined;
      out.push(v);
      i++;
    } else {
      const j = line.indexOf(",", i);
      const end = j < 0 ? line.length : j;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

/**
 * Parses trace CSV text. The header must name the columns (any order, the 11 known names;
 * unknown names are an error). Blank lines and lines starting with `#` are skipped.
 */
export function parseTraceCsv(text: string, file: string, ctx: TraceContext): TraceResult {
  const errors: string[] = [];
  const jobs: SimJob[] = [];
  const lines = text.split("\n");
  let headerLine = 0;
  while (headerLine < lines.length && isSkippable(lines[headerLine]!)) headerLine++;
  if (headerLine >= lines.length) return { jobs, errors: [`${file}: empty trace (no header)`] };
  const header = (splitCsvLine(stripCr(lines[headerLine]!)) ?? []).map((h) => h.trim().toLowerCase());
  const known = new Set<string>(TRACE_COLUMNS);
  const index = new Map<TraceColumn, number>();
  header.forEach((h, i) => {
    if (!known.has(h)) errors.push(`${file}:${headerLine + 1}: unknown column "${h}"`);
    else if (index.has(h as TraceColumn)) errors.push(`${file}:${headerLine + 1}: duplicate column "${h}"`);
    else index.set(h as TraceColumn, i);
  });
  for (const col of REQUIRED) {
    if (!index.has(col)) errors.push(`${file}:${headerLine + 1}: missing column "${col}"`);
  }
  if (errors.length > 0) return { jobs: [], errors };

  const seen = new Map<string, number>();
  for (let n = headerLine + 1; n < lines.length; n++) {
    const line = stripCr(lines[n]!);
    if (isSkippable(line)) continue;
    const where = `${file}:${n + 1}`;
    const fields = splitCsvLine(line);
    if (!fields) {
      errors.push(`${where}: malformed row (unterminated quote)`);
      continue;
    }
    if (fields.length !== header.length) {
      errors.push(`${where}: malformed row: ${fields.length} fields, expected ${header.length}`);
      continue;
    }
    const row: Partial<Record<TraceColumn, string>> = {};
    for (const [col, i] of index) row[col] = fields[i];
    const job = validateJobRow(row, where, ctx, errors);
    if (!job) continue;
    const first = seen.get(job.id);
    if (first !== undefined) {
      errors.push(`${where}: duplicate job id "${job.id}" (first on line ${first})`);
      continue;
    }
    seen.set(job.id, n + 1);
    jobs.push(job);
  }
  return errors.length > 0 ? { jobs: [], errors } : { jobs, errors };
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
function isSkippable(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

/** Writes jobs as trace CSV (the importers' output); blanks where a field equals its default. */
export function formatTraceCsv(jobs: readonly SimJob[]): string {
  const out: string[] = [TRACE_COLUMNS.join(",")];
  for (const j of jobs) {
    out.push(
      [
        csvField(j.id),
        j.submit,
        csvField(j.budget),
        csvField(j.user),
        csvField(j.cluster),
        j.gpus,
        j.duration,
        j.minRuntime,
        j.maxRuntime ?? "",
        j.resumable ? "true" : "false",
        j.priority,
      ].join(","),
    );
  }
  return out.join("\n") + "\n";
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}
