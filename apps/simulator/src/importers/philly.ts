/**
 * Philly per-VC importer (rules in apps/simulator/README.md, "Importers"):
 * one shared cluster `philly` of 8-GPU nodes; one budget per VC below the root `philly`, allocation
 * = the VC's node count / the sum of node counts (VCs missing from the node table get 0: their jobs
 * run as unallocated); every VC's clock starts at its own first job, so merging aligns the VCs'
 * first jobs at t = 0; a window [fromDay, fromDay + days) is kept and shifted to start at 0, or
 * to start at `warmupDays` when that many days before it are replayed as a warm-up.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { BudgetSpec, ClusterSpec, SimJob } from "../types.js";
import {
  checkTeams,
  deriveContract,
  markOverflowUnallocated,
  markUnallocatedFraction,
  sizeCluster,
  type ImportResult,
} from "./common.js";

export interface PhillyImportOptions {
  readonly tracesDir: string;
  /** First day kept (0 = every VC's first job). */
  readonly fromDay?: number;
  /** Days kept; default: all. */
  readonly days?: number;
  /**
   * Days of submissions before `fromDay` replayed as a warm-up, so the measured window starts on a
   * cluster already running the work of the days before (as the real one was), not an empty one.
   * t = 0 is then `fromDay - warmupDays`; the cluster is sized on the measured window only. Pair it
   * with `simulation.measureFrom` = the warm-up in the scenario. Default 0.
   */
  readonly warmupDays?: number;
  /** Only these VCs (default: all 12). */
  readonly vcs?: readonly string[];
  /**
   * Size the cluster so that submitted GPU-time / (capacity x window) = load. Default: the VCs'
   * own node counts summed (352 nodes, 2,816 GPUs).
   */
  readonly load?: number;
  /** Fixed node count (overrides `load`). */
  readonly nodes?: number;
  /** Work beyond a VC's allocation becomes unallocated (markOverflowUnallocated). */
  readonly overflow?: boolean;
  /**
   * VC -> budget path below the root (`vision/video/streams`): jobs are charged to that leaf, and
   * only the VCs named here are kept. The tree itself (and its allocations) is then the scenario's
   * own `budgets`, which must have every path as a leaf. Two VCs may share a path.
   */
  readonly teams?: Readonly<Record<string, string>>;
  /**
   * Jobs submitted before the replay's start that would still be running then (if each had started
   * at its submit time) enter at t = 0 with the work they have left, so the replay starts on a
   * cluster already as busy as the trace was, not only with the long jobs of the warm-up day.
   */
  readonly carryOver?: boolean;
  /** Budget path -> fraction of its regular jobs run as unallocated work (markUnallocatedFraction). */
  readonly unallocatedFraction?: Readonly<Record<string, number>>;
}

export interface PhillyRow {
  readonly vc: string;
  readonly submit: number;
  readonly gpus: number;
  readonly duration: number;
}

/** Parses the per-VC CSV (`vc,submit_offset_s,num_gpus,duration_s`, CRLF or LF). */
export function parsePhillyJobs(text: string): PhillyRow[] {
  const rows: PhillyRow[] = [];
  const lines = text.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    const [vc, submit, gpus, duration] = line.split(",");
    const row = { vc: vc ?? "", submit: Number(submit), gpus: Number(gpus), duration: Number(duration) };
    if (!row.vc || ![row.submit, row.gpus, row.duration].every(Number.isFinite)) {
      throw new Error(`philly_per_vc_jobs.csv:${i + 1}: malformed row "${line}"`);
    }
    rows.push(row);
  }
  return rows;
}

export function parseNodeCounts(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n").slice(1)) {
    const [vc, n] = line.trim().split(",");
    if (vc && n && Number.isFinite(Number(n))) out.set(vc, Number(n));
  }
  return out;
}

/** Builds the scenario parts from parsed rows; pure, so tests can feed a few lines. */
export function importPhillyRows(
  rows: readonly PhillyRow[],
  nodeCounts: ReadonlyMap<string, number>,
  opts: Omit<PhillyImportOptions, "tracesDir"> = {},
): ImportResult {
  const warmup = Math.min(opts.warmupDays ?? 0, opts.fromDay ?? 0) * 86400;
  const from = (opts.fromDay ?? 0) * 86400 - warmup;
  const to = opts.days === undefined ? Infinity : from + warmup + opts.days * 86400;
  const teams = opts.teams;
  if (teams) {
    checkTeams(teams, new Set(rows.map((r) => r.vc)), "VC");
    if (opts.overflow) throw new Error("overflow: cannot be combined with teams (the allocations are the scenario's own)");
  }
  const wanted = teams ? new Set(Object.keys(teams)) : opts.vcs ? new Set(opts.vcs) : undefined;
  const perVc = new Map<string, number>();
  const jobs: SimJob[] = [];
  const vcs = new Set<string>();
  for (const r of rows) {
    if (wanted && !wanted.has(r.vc)) continue;
    vcs.add(r.vc);
    const n = perVc.get(r.vc) ?? 0;
    perVc.set(r.vc, n + 1);
    const carried = opts.carryOver === true && r.submit < from && r.submit + r.duration > from;
    if (!carried && (r.submit < from || r.submit >= to)) continue;
    const gpus = r.gpus > 8 && r.gpus % 8 !== 0 ? Math.ceil(r.gpus / 8) * 8 : Math.max(1, r.gpus);
    const duration = Math.max(1, Math.round(carried ? r.submit + r.duration - from : r.duration));
    jobs.push({
      id: `${r.vc}-${n}`,
      submit: carried ? 0 : r.submit - from,
      budget: teams?.[r.vc] ?? r.vc,
      user: r.vc,
      cluster: "philly",
      gpus,
      duration,
      ...deriveContract(duration, gpus),
      resumable: true,
      priority: 0,
    });
  }
  const names = [...vcs].sort();
  const totalNodes = names.reduce((s, vc) => s + (nodeCounts.get(vc) ?? 0), 0);
  const budgets: BudgetSpec = {
    name: "philly",
    allocation: {},
    children: names.map((vc) => ({
      name: vc,
      allocation: { philly: totalNodes > 0 ? (nodeCounts.get(vc) ?? 0) / totalNodes : 0 },
      children: [],
    })),
  };
  const span = opts.days !== undefined ? warmup + opts.days * 86400 : jobs.reduce((m, j) => Math.max(m, j.submit + 1), 1);
  // Sized on the measured window: its jobs, shifted so that it starts at 0.
  const measured = warmup > 0 ? jobs.filter((j) => j.submit >= warmup).map((j) => ({ ...j, submit: j.submit - warmup })) : jobs;
  const nodes = sizeCluster(measured, span - warmup, 8, { nodes: opts.nodes, load: opts.load, fallback: totalNodes });
  const cluster: ClusterSpec = { name: "philly", gpuType: "P100", nodes, gpusPerNode: 8 };
  jobs.sort((a, b) => a.submit - b.submit || (a.id < b.id ? -1 : 1));
  const out = opts.unallocatedFraction ? markUnallocatedFraction(jobs, opts.unallocatedFraction) : jobs;
  if (!opts.overflow) return { clusters: [cluster], budgets, jobs: out, span };
  const share = new Map(budgets.children.map((b) => [b.name, (b.allocation.philly ?? 0) * nodes * 8]));
  return { clusters: [cluster], budgets, jobs: markOverflowUnallocated(jobs, share), span };
}

export function importPhilly(opts: PhillyImportOptions): ImportResult {
  const text = gunzipSync(readFileSync(join(opts.tracesDir, "philly_per_vc_jobs.csv.gz"))).toString("utf8");
  const counts = parseNodeCounts(readFileSync(join(opts.tracesDir, "philly_vc_node_count.csv"), "utf8"));
  return importPhillyRows(parsePhillyJobs(text), counts, opts);
}
