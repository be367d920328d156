/**
 * Helios importer (rules in apps/simulator/README.md, "Importers"): one cluster `helios` of 8-GPU
 * nodes; one budget per trace user (`u<user>`) below the root `helios`, allocation = the user's
 * share of the trace's GPU-time (so allocations match long-run demand); submit = the running sum of
 * `interval`; CPU-only rows (gpu_num 0) are skipped; run_time 0 becomes 1 s. With `teams`, each
 * user's jobs are charged to a leaf of the scenario's own tree instead (users not named are left out).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BudgetSpec, ClusterSpec, SimJob } from "../types.js";
import { checkTeams, deriveContract, markUnallocatedFraction, sizeCluster, type ImportResult } from "./common.js";

export interface HeliosImportOptions {
  readonly tracesDir: string;
  /** Size the cluster so that submitted GPU-time / (capacity x span) = load. */
  readonly load?: number;
  /** Fixed node count; default 121 (the Venus cluster's 968 GPUs on its first day). */
  readonly nodes?: number;
  /** Keep only the first N GPU jobs. */
  readonly limit?: number;
  /**
   * Trace user (its `user` column, e.g. "35") -> budget path below the root (e.g. "vision/video/streams"):
   * the user's jobs are charged to that leaf of the scenario's own tree, and only the users named are kept.
   */
  readonly teams?: Readonly<Record<string, string>>;
  /** Per budget (its path below the root), the fraction of its regular jobs run as unallocated work. */
  readonly unallocatedFraction?: Readonly<Record<string, number>>;
}

export const HELIOS_DEFAULT_NODES = 121;

export interface HeliosRow {
  readonly id: string;
  readonly user: string;
  readonly gpus: number;
  readonly interval: number;
  readonly runTime: number;
  readonly status: string;
}

export function parseHeliosJobs(text: string): HeliosRow[] {
  const lines = text.split("\n");
  const header = (lines[0] ?? "").trim().split(",");
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`helios_15k_jobs.csv:1: missing column "${name}"`);
    return i;
  };
  const [iId, iUser, iGpu, iInterval, iRun, iStatus] = [
    col("u_id"),
    col("user"),
    col("gpu_num"),
    col("interval"),
    col("run_time"),
    col("new_status"),
  ];
  const rows: HeliosRow[] = [];
  for (let n = 1; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === "") continue;
    const f = line.split(",");
    const row = {
      id: f[iId] ?? "",
      user: f[iUser] ?? "",
      gpus: Number(f[iGpu]),
      interval: Number(f[iInterval]),
      runTime: Number(f[iRun]),
      status: f[iStatus] ?? "",
    };
    if (!row.id || !row.user || ![row.gpus, row.interval, row.runTime].every(Number.isFinite)) {
      throw new Error(`helios_15k_jobs.csv:${n + 1}: malformed row "${line}"`);
    }
    rows.push(row);
  }
  return rows;
}

export function importHeliosRows(rows: readonly HeliosRow[], opts: Omit<HeliosImportOptions, "tracesDir"> = {}): ImportResult {
  const teams = opts.teams;
  if (teams) checkTeams(teams, new Set(rows.filter((r) => r.gpus > 0).map((r) => r.user)), "user");
  const jobs: SimJob[] = [];
  let t = 0;
  for (const r of rows) {
    t += r.interval;
    if (r.gpus <= 0) continue;
    if (teams && teams[r.user] === undefined) continue;
    if (opts.limit !== undefined && jobs.length >= opts.limit) break;
    const duration = Math.max(1, Math.round(r.runTime));
    const gpus = r.gpus > 8 && r.gpus % 8 !== 0 ? Math.ceil(r.gpus / 8) * 8 : r.gpus;
    jobs.push({
      id: `h${r.id}`,
      submit: t,
      budget: teams?.[r.user] ?? `u${r.user}`,
      user: `u${r.user}`,
      cluster: "helios",
      gpus,
      duration,
      ...deriveContract(duration, gpus),
      resumable: true,
      priority: 0,
    });
  }
  const first = jobs[0]?.submit ?? 0;
  const moved = jobs.map((j) => ({ ...j, submit: j.submit - first }));
  const shifted = opts.unallocatedFraction ? markUnallocatedFraction(moved, opts.unallocatedFraction) : moved;
  const use = new Map<string, number>();
  let total = 0;
  for (const j of shifted) {
    use.set(j.budget, (use.get(j.budget) ?? 0) + j.gpus * j.duration);
    total += j.gpus * j.duration;
  }
  const names = [...use.keys()].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  // Floor to 1e-6 so the siblings never sum above 1 through rounding.
  const budgets: BudgetSpec = {
    name: "helios",
    allocation: {},
    children: names.map((b) => ({
      name: b,
      allocation: { helios: Math.floor(((use.get(b) ?? 0) / total) * 1e6) / 1e6 },
      children: [],
    })),
  };
  const span = Math.max(1, shifted.at(-1)?.submit ?? 1);
  const nodes = sizeCluster(shifted, span, 8, { nodes: opts.nodes, load: opts.load, fallback: HELIOS_DEFAULT_NODES });
  const cluster: ClusterSpec = { name: "helios", gpuType: "V100", nodes, gpusPerNode: 8 };
  return { clusters: [cluster], budgets, jobs: shifted, span };
}

export function importHelios(opts: HeliosImportOptions): ImportResult {
  return importHeliosRows(parseHeliosJobs(readFileSync(join(opts.tracesDir, "helios_15k_jobs.csv"), "utf8")), opts);
}
