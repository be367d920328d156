/**
 * Scenario files (YAML or JSON): clusters, the budget tree, SPEC policy knobs, simulation knobs,
 * node health events and the jobs (a CSV path relative to the scenario file, or an inline list).
 * Validation collects every problem it can find and throws one `InputError` listing them.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { durationProblem, parseDuration } from "./duration.js";
import { parseTraceCsv, validateJobRow, type TraceColumn, type TraceContext } from "./trace.js";
import { importHelios } from "./importers/helios.js";
import { importPhilly } from "./importers/philly.js";
import { defaultTracesDir } from "./importers/traces-dir.js";
import type { ImportResult } from "./importers/common.js";
import {
  DEFAULT_POLICY,
  DEFAULT_SIMULATION,
  InputError,
  NODE_HEALTH,
  type BudgetSpec,
  type ClusterSpec,
  type NodeEventSpec,
  type NodeHealth,
  type PolicyKnobs,
  type Scenario,
  type SimJob,
  type SimulationKnobs,
} from "./types.js";

const EPS = 1e-9;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads and validates a scenario file (`.yaml`, `.yml` or `.json`). */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new InputError([`${path}: cannot read (${(e as Error).message})`]);
  }
  let raw: unknown;
  try {
    raw = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new InputError([`${path}: not valid ${/\.json$/i.test(path) ? "JSON" : "YAML"}: ${(e as Error).message}`]);
  }
  return validateScenario(raw, { file: path, baseDir: dirname(resolve(path)) });
}

export interface ValidateOptions {
  /** Label used in messages. */
  readonly file: string;
  /** Directory that a `jobs: trace.csv` path is relative to. */
  readonly baseDir: string;
  /** Jobs already built (importers), used when the raw scenario has no `jobs` key. */
  readonly jobs?: readonly SimJob[];
}

export function validateScenario(raw: unknown, opts: ValidateOptions): Scenario {
  const errors: string[] = [];
  const f = opts.file;
  if (!isObj(raw)) throw new InputError([`${f}: the scenario must be a mapping with clusters, budgets and jobs`]);

  let imported: ImportResult | undefined;
  if (raw.import !== undefined) {
    imported = runImport(raw.import, opts.baseDir, f, errors, raw.budgets !== undefined);
    if (!imported) throw new InputError(errors);
    raw = {
      ...raw,
      clusters: raw.clusters ?? imported.clusters,
      budgets: raw.budgets ?? imported.budgets,
    };
    if (!isObj(raw)) throw new InputError(errors);
  }
  const clusters = validateClusters(raw.clusters, f, errors);
  const clusterMap = new Map(clusters.map((c) => [c.name, c]));
  const budgets = validateBudgetTree(raw.budgets, clusterMap, f, errors);
  const policy = validatePolicy(raw.policy, f, errors);
  const simulation = validateSimulation(raw.simulation, f, errors);
  const nodeEvents = validateNodeEvents(raw.nodeEvents, clusterMap, f, errors);
  if (errors.length > 0) throw new InputError(errors);

  const leaves = new Set<string>();
  const treePaths = new Set<string>();
  collectPaths(budgets, "", leaves, treePaths);
  const ctx: TraceContext = { clusters: clusterMap, budgets: leaves, treePaths, maxMinRuntime: policy.maxMinRuntime };

  let jobs: SimJob[];
  const given = imported?.jobs ?? opts.jobs;
  if (raw.jobs === undefined && given) {
    jobs = [];
    const seen = new Set<string>();
    given.forEach((j, i) => {
      const job = validateJobRow(jobToRow(j), `jobs[${i}] (${j.id})`, ctx, errors);
      if (job && seen.has(job.id)) errors.push(`jobs[${i}]: duplicate job id "${job.id}"`);
      else if (job) {
        seen.add(job.id);
        jobs.push(job);
      }
    });
  } else if (typeof raw.jobs === "string") {
    const path = resolve(opts.baseDir, raw.jobs);
    let text: string | undefined;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      errors.push(`${f}: jobs: cannot read "${raw.jobs}" (${(e as Error).message})`);
    }
    const result = text === undefined ? { jobs: [], errors: [] } : parseTraceCsv(text, raw.jobs, ctx);
    errors.push(...result.errors);
    jobs = result.jobs;
  } else if (Array.isArray(raw.jobs)) {
    jobs = [];
    const seen = new Map<string, number>();
    raw.jobs.forEach((r: unknown, i) => {
      if (!isObj(r)) {
        errors.push(`${f}: jobs[${i}]: must be a mapping of trace fields`);
        return;
      }
      const job = validateJobRow(r as Partial<Record<TraceColumn, string>>, `${f}: jobs[${i}]`, ctx, errors);
      if (!job) return;
      const first = seen.get(job.id);
      if (first !== undefined) errors.push(`${f}: jobs[${i}]: duplicate job id "${job.id}" (first at jobs[${first}])`);
      else {
        seen.set(job.id, i);
        jobs.push(job);
      }
    });
  } else {
    errors.push(`${f}: jobs must be a CSV path or a list of jobs`);
    jobs = [];
  }
  if (errors.length > 0) throw new InputError(errors);
  // Stable sort by submit time: the simulator's event order for equal times is the trace order.
  const order = jobs.map((j, i) => ({ j, i }));
  order.sort((a, b) => a.j.submit - b.j.submit || a.i - b.i);
  return { clusters, budgets, policy, simulation, nodeEvents, jobs: order.map((o) => o.j) };
}

function jobToRow(j: SimJob): Partial<Record<TraceColumn, string | number | boolean>> {
  return {
    id: j.id,
    submit: j.submit,
    budget: j.budget,
    user: j.user,
    cluster: j.cluster,
    gpus: j.gpus,
    duration: j.duration,
    min_runtime: j.minRuntime,
    max_runtime: j.maxRuntime ?? "",
    resumable: j.resumable,
    priority: j.priority,
  };
}

function collectPaths(node: BudgetSpec, prefix: string, leaves: Set<string>, all: Set<string>): void {
  for (const child of node.children) {
    const path = prefix ? `${prefix}/${child.name}` : child.name;
    all.add(path);
    if (child.children.length === 0) leaves.add(path);
    else collectPaths(child, path, leaves, all);
  }
}

function validateClusters(raw: unknown, f: string, errors: string[]): ClusterSpec[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push(`${f}: clusters must be a non-empty list`);
    return [];
  }
  const out: ClusterSpec[] = [];
  const names = new Set<string>();
  raw.forEach((c: unknown, i) => {
    const w = `${f}: clusters[${i}]`;
    if (!isObj(c)) return void errors.push(`${w}: must be a mapping`);
    const name = typeof c.name === "string" ? c.name.trim() : "";
    if (!/^[A-Za-z0-9_.]+$/.test(name)) errors.push(`${w}: name must be letters, digits, "_" or "." (got "${String(c.name)}")`);
    else if (names.has(name)) errors.push(`${w}: duplicate cluster name "${name}"`);
    names.add(name);
    const nodes = Number(c.nodes);
    const gpusPerNode = c.gpusPerNode === undefined ? 8 : Number(c.gpusPerNode);
    if (!Number.isInteger(nodes) || nodes <= 0) errors.push(`${w}: nodes must be a positive integer`);
    if (!Number.isInteger(gpusPerNode) || gpusPerNode <= 0) errors.push(`${w}: gpusPerNode must be a positive integer`);
    out.push({ name, gpuType: typeof c.gpuType === "string" ? c.gpuType : "GPU", nodes, gpusPerNode });
  });
  return out;
}

function validateBudgetTree(raw: unknown, clusters: ReadonlyMap<string, ClusterSpec>, f: string, errors: string[]): BudgetSpec {
  if (!isObj(raw)) {
    errors.push(`${f}: budgets must be the root of the budget tree (a mapping with name and children)`);
    return { name: "root", allocation: {}, children: [] };
  }
  const walk = (node: Obj, where: string, isRoot: boolean): BudgetSpec => {
    const name = typeof node.name === "string" ? node.name.trim() : "";
    if (name === "" || name.includes("/")) errors.push(`${where}: name must be non-empty and contain no "/"`);
    const allocation: Record<string, number> = {};
    if (node.allocation !== undefined) {
      if (!isObj(node.allocation)) errors.push(`${where}: allocation must map cluster names to fractions`);
      else {
        for (const [cluster, value] of Object.entries(node.allocation)) {
          if (!clusters.has(cluster)) errors.push(`${where}: allocation names unknown cluster "${cluster}"`);
          const v = Number(value);
          if (!Number.isFinite(v) || v < 0 || v > 1) errors.push(`${where}: allocation.${cluster} must be a fraction in 0..1`);
          else allocation[cluster] = v;
        }
      }
    }
    if (isRoot && Object.keys(allocation).length > 0)
      errors.push(`${where}: the root holds 100% of every cluster; give it no allocation`);
    const rawChildren = node.children ?? [];
    const children: BudgetSpec[] = [];
    if (!Array.isArray(rawChildren)) errors.push(`${where}: children must be a list`);
    else {
      const seen = new Set<string>();
      rawChildren.forEach((c: unknown, i) => {
        const w = `${where}.children[${i}]`;
        if (!isObj(c)) return void errors.push(`${w}: must be a mapping`);
        const child = walk(c, `${f}: budget "${String(c.name ?? `#${i}`)}"`, false);
        if (seen.has(child.name)) errors.push(`${w}: duplicate sibling name "${child.name}"`);
        seen.add(child.name);
        children.push(child);
      });
      for (const cluster of clusters.keys()) {
        const sum = children.reduce((s, c) => s + (c.allocation[cluster] ?? 0), 0);
        if (sum > 1 + EPS) {
          errors.push(`${where}: children's allocations on "${cluster}" sum to ${sum.toFixed(4)} (> 1)`);
        }
      }
    }
    return { name, allocation, children };
  };
  const root = walk(raw, `${f}: budgets (root)`, true);
  if (root.children.length === 0) errors.push(`${f}: budgets: the tree needs at least one budget below the root`);
  return root;
}

function durationKnob(obj: Obj, key: string, fallback: number, where: string, errors: string[]): number {
  const v = obj[key];
  if (v === undefined) return fallback;
  const d = parseDuration(v);
  if (d === null) {
    errors.push(durationProblem(`${where}.${key}`, v));
    return fallback;
  }
  return d;
}

function numberKnob(obj: Obj, key: string, fallback: number, where: string, errors: string[], int: boolean): number {
  const v = obj[key];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || (int && !Number.isInteger(n))) {
    errors.push(`${where}.${key}: "${String(v)}" must be a ${int ? "non-negative integer" : "number >= 0"}`);
    return fallback;
  }
  return n;
}

function validatePolicy(raw: unknown, f: string, errors: string[]): PolicyKnobs {
  if (raw === undefined || raw === null) return DEFAULT_POLICY;
  const w = `${f}: policy`;
  if (!isObj(raw)) {
    errors.push(`${w}: must be a mapping`);
    return DEFAULT_POLICY;
  }
  const known = new Set(Object.keys(DEFAULT_POLICY));
  for (const k of Object.keys(raw)) if (!known.has(k)) errors.push(`${w}: unknown knob "${k}"`);
  const d = DEFAULT_POLICY;
  return {
    lookbackWindow: durationKnob(raw, "lookbackWindow", d.lookbackWindow, w, errors),
    projectionHorizon: durationKnob(raw, "projectionHorizon", d.projectionHorizon, w, errors),
    preemptionMargin: numberKnob(raw, "preemptionMargin", d.preemptionMargin, w, errors, false),
    maxMinRuntime: durationKnob(raw, "maxMinRuntime", d.maxMinRuntime, w, errors),
    debugMaxGpus: numberKnob(raw, "debugMaxGpus", d.debugMaxGpus, w, errors, true),
    debugMaxGpusPerUser: numberKnob(raw, "debugMaxGpusPerUser", d.debugMaxGpusPerUser, w, errors, true),
    gracePeriod: durationKnob(raw, "gracePeriod", d.gracePeriod, w, errors),
    unallocatedGracePeriod: durationKnob(raw, "unallocatedGracePeriod", d.unallocatedGracePeriod, w, errors),
    heartbeatTimeout: durationKnob(raw, "heartbeatTimeout", d.heartbeatTimeout, w, errors),
    debugReserve: numberKnob(raw, "debugReserve", d.debugReserve, w, errors, false),
    debugVictimMaxCost: durationKnob(raw, "debugVictimMaxCost", d.debugVictimMaxCost, w, errors),
  };
}

function validateSimulation(raw: unknown, f: string, errors: string[]): SimulationKnobs {
  if (raw === undefined || raw === null) return DEFAULT_SIMULATION;
  const w = `${f}: simulation`;
  if (!isObj(raw)) {
    errors.push(`${w}: must be a mapping`);
    return DEFAULT_SIMULATION;
  }
  const known = new Set(["restartOverhead", "checkpointInterval", "until", "measureFrom"]);
  for (const k of Object.keys(raw)) if (!known.has(k)) errors.push(`${w}: unknown knob "${k}"`);
  const checkpointInterval = durationKnob(raw, "checkpointInterval", DEFAULT_SIMULATION.checkpointInterval, w, errors);
  if (checkpointInterval <= 0) errors.push(`${w}.checkpointInterval must be > 0`);
  const until = raw.until === undefined || raw.until === null ? null : durationKnob(raw, "until", 0, w, errors);
  const measureFrom = durationKnob(raw, "measureFrom", DEFAULT_SIMULATION.measureFrom, w, errors);
  if (measureFrom % 3600 !== 0) errors.push(`${w}.measureFrom must be a whole number of hours (the measures are hourly)`);
  if (until !== null && measureFrom >= until) errors.push(`${w}.measureFrom must be before until`);
  return {
    restartOverhead: durationKnob(raw, "restartOverhead", DEFAULT_SIMULATION.restartOverhead, w, errors),
    checkpointInterval,
    until,
    measureFrom,
  };
}

function validateNodeEvents(
  raw: unknown,
  clusters: ReadonlyMap<string, ClusterSpec>,
  f: string,
  errors: string[],
): NodeEventSpec[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push(`${f}: nodeEvents must be a list`);
    return [];
  }
  const out: NodeEventSpec[] = [];
  const healths = new Set<string>(NODE_HEALTH);
  raw.forEach((e: unknown, i) => {
    const w = `${f}: nodeEvents[${i}]`;
    if (!isObj(e)) return void errors.push(`${w}: must be a mapping`);
    const t = parseDuration(e.t);
    if (t === null) errors.push(`${w}: ${durationProblem("t", e.t)}`);
    const node = String(e.node ?? "");
    const m = /^(.+)-(\d+)$/.exec(node);
    const cluster = m ? clusters.get(m[1]!) : undefined;
    if (!m || !cluster) errors.push(`${w}: unknown node "${node}" (names are "<cluster>-<index from 0>")`);
    else if (Number(m[2]) >= cluster.nodes) {
      errors.push(`${w}: unknown node "${node}" (cluster "${cluster.name}" has nodes 0..${cluster.nodes - 1})`);
    }
    const health = String(e.health ?? "");
    if (!healths.has(health)) errors.push(`${w}: health must be one of ${NODE_HEALTH.join(", ")}`);
    if (t !== null) out.push({ t, node, health: health as NodeHealth });
  });
  return out
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.t - b.e.t || a.i - b.i)
    .map((x) => x.e);
}

const IMPORT_KEYS = new Set([
  "source",
  "tracesDir",
  "fromDay",
  "days",
  "load",
  "nodes",
  "vcs",
  "limit",
  "overflow",
  "warmupDays",
  "teams",
  "unallocatedFraction",
  "carryOver",
]);

/** Keys a helios import refuses: the trace has one window and real users (no VCs, no days to pick). */
const PHILLY_ONLY_KEYS = ["fromDay", "days", "warmupDays", "vcs", "overflow", "carryOver"] as const;

/**
 * `import: { source: philly | helios, ... }` builds clusters, budgets and jobs from the public
 * traces at load time (so big generated traces are never committed). Keys given beside `import`
 * (clusters, budgets) override the imported ones.
 */
function runImport(raw: unknown, baseDir: string, f: string, errors: string[], hasBudgets: boolean): ImportResult | undefined {
  const w = `${f}: import`;
  if (!isObj(raw)) {
    errors.push(`${w}: must be a mapping with a source`);
    return undefined;
  }
  for (const k of Object.keys(raw)) if (!IMPORT_KEYS.has(k)) errors.push(`${w}: unknown key "${k}"`);
  const num = (k: string): number | undefined => {
    if (raw[k] === undefined) return undefined;
    const n = Number(raw[k]);
    if (!Number.isFinite(n) || n < 0) errors.push(`${w}.${k}: must be a number >= 0`);
    return n;
  };
  const tracesDir = typeof raw.tracesDir === "string" ? resolve(baseDir, raw.tracesDir) : defaultTracesDir();
  const common = { tracesDir, load: num("load"), nodes: num("nodes") };
  const fromDay = num("fromDay");
  const days = num("days");
  const warmupDays = num("warmupDays");
  const limit = num("limit");
  if (errors.length > 0) return undefined;
  try {
    if (raw.source === "philly") {
      const vcs = Array.isArray(raw.vcs) ? raw.vcs.map(String) : undefined;
      if (raw.overflow !== undefined && typeof raw.overflow !== "boolean") {
        errors.push(`${w}.overflow: must be true or false`);
        return undefined;
      }
      if (raw.limit !== undefined) errors.push(`${w}.limit: only a helios import has this key`);
      if (raw.carryOver !== undefined && typeof raw.carryOver !== "boolean") errors.push(`${w}.carryOver: must be true or false`);
      const { teams, unallocatedFraction } = treeOptions(raw, w, errors, hasBudgets);
      if (errors.length > 0) return undefined;
      return importPhilly({
        ...common,
        fromDay,
        days,
        warmupDays,
        vcs,
        overflow: raw.overflow === true,
        teams,
        unallocatedFraction,
        carryOver: raw.carryOver === true,
      });
    }
    if (raw.source === "helios") {
      for (const k of PHILLY_ONLY_KEYS) if (raw[k] !== undefined) errors.push(`${w}.${k}: only a philly import has this key`);
      const { teams, unallocatedFraction } = treeOptions(raw, w, errors, hasBudgets);
      if (errors.length > 0) return undefined;
      return importHelios({ ...common, limit, teams, unallocatedFraction });
    }
  } catch (e) {
    errors.push(`${w}: ${(e as Error).message}`);
    return undefined;
  }
  errors.push(`${w}.source: must be "philly" or "helios"`);
  return undefined;
}

/** The options both sources take for a lab's own tree: `teams` (which needs a budgets tree) and `unallocatedFraction`. */
function treeOptions(
  raw: Record<string, unknown>,
  w: string,
  errors: string[],
  hasBudgets: boolean,
): { teams: Record<string, string> | undefined; unallocatedFraction: Record<string, number> | undefined } {
  const teams = stringMap(raw.teams, `${w}.teams`, errors);
  const unallocatedFraction = numberMap(raw.unallocatedFraction, `${w}.unallocatedFraction`, errors);
  if (teams && !hasBudgets) errors.push(`${w}.teams: needs a budgets tree beside import (with every team path as a leaf)`);
  return { teams, unallocatedFraction };
}

function stringMap(raw: unknown, w: string, errors: string[]): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw) || Object.values(raw).some((v) => typeof v !== "string")) {
    errors.push(`${w}: must be a mapping of names to budget paths`);
    return undefined;
  }
  return raw as Record<string, string>;
}

function numberMap(raw: unknown, w: string, errors: string[]): Record<string, number> | undefined {
  if (raw === undefined) return undefined;
  if (!isObj(raw) || Object.values(raw).some((v) => typeof v !== "number")) {
    errors.push(`${w}: must be a mapping of budget paths to numbers from 0 to 1`);
    return undefined;
  }
  return raw as Record<string, number>;
}
