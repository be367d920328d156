import type { BudgetSpec, ClusterSpec, SimJob } from "../types.js";

export interface ImportResult {
  readonly clusters: ClusterSpec[];
  readonly budgets: BudgetSpec;
  readonly jobs: SimJob[];
  /** Seconds covered by the imported submissions (the window). */
  readonly span: number;
}

/** Debug lane of the importers: jobs that ran <= 15 min on <= 8 GPUs. */
export const IMPORT_DEBUG_MAX_DURATION = 900;
export const IMPORT_DEBUG_MAX_GPUS = 8;
/** min_runtime = min(duration, 2h). */
export const IMPORT_MIN_RUNTIME_CAP = 7200;

/** The contract derived from what a job did in the trace. */
export function deriveContract(duration: number, gpus: number): { minRuntime: number; maxRuntime: number | null } {
  const debug = duration <= IMPORT_DEBUG_MAX_DURATION && gpus <= IMPORT_DEBUG_MAX_GPUS;
  return {
    minRuntime: Math.min(duration, IMPORT_MIN_RUNTIME_CAP),
    maxRuntime: debug ? IMPORT_DEBUG_MAX_DURATION : null,
  };
}

/**
 * GPU-time the jobs ask for inside [0, span): each job as if it started at its submit time, cut at
 * the end of the window (a 60-day job submitted on the last day asks for one day of it here).
 */
export function offeredGpuSeconds(jobs: readonly SimJob[], span: number): number {
  let s = 0;
  for (const j of jobs) s += j.gpus * Math.max(0, Math.min(j.duration, span - j.submit));
  return s;
}

/**
 * Node count: `nodes` if given; else, with `load`, the smallest count such that offered GPU-time
 * (offeredGpuSeconds) / (capacity x span) <= load; else `fallback`. Never smaller than the
 * largest job.
 */
export function sizeCluster(
  jobs: readonly SimJob[],
  span: number,
  gpusPerNode: number,
  o: { nodes?: number | undefined; load?: number | undefined; fallback: number },
): number {
  const largest = jobs.reduce((m, j) => Math.max(m, Math.ceil(j.gpus / gpusPerNode)), 1);
  let nodes = o.fallback;
  if (o.nodes !== undefined) nodes = o.nodes;
  else if (o.load !== undefined) {
    nodes = Math.ceil(offeredGpuSeconds(jobs, span) / (o.load * Math.max(1, span) * gpusPerNode));
  }
  return Math.max(largest, nodes, 1);
}

/** Offered GPU-time / (capacity x span): how many times the cluster the trace asks for. */
export function demandRatio(jobs: readonly SimJob[], cluster: ClusterSpec, span: number): number {
  return offeredGpuSeconds(jobs, span) / (cluster.nodes * cluster.gpusPerNode * Math.max(1, span));
}

/**
 * `overflow` rule (optional): work a team submits beyond its allocation is unallocated. Per budget,
 * in submit order, count the GPUs its jobs would hold if each ran from its submit time for its
 * duration; a regular (non-debug) job that would take that count above the budget's share of the
 * cluster (effective allocation x GPUs) gets min_runtime 0: free, never charged, preemptible at any
 * moment (SPEC §2). Debug-lane jobs keep their contract. Pure function of the trace, the same for
 * every policy. Returns new job objects.
 */
export function markOverflowUnallocated(jobs: readonly SimJob[], shareGpus: ReadonlyMap<string, number>): SimJob[] {
  const ends = new Map<string, { end: number; gpus: number }[]>();
  const held = new Map<string, number>();
  const order = jobs.map((j, i) => ({ j, i })).sort((a, b) => a.j.submit - b.j.submit || a.i - b.i);
  const out: SimJob[] = new Array<SimJob>(jobs.length);
  for (const { j, i } of order) {
    let list = ends.get(j.budget);
    if (!list) ends.set(j.budget, (list = []));
    let h = held.get(j.budget) ?? 0;
    // Drop jobs that would have ended by now (the list is small: one team's concurrent jobs).
    for (let k = list.length - 1; k >= 0; k--) {
      if (list[k]!.end <= j.submit) {
        h -= list[k]!.gpus;
        list.splice(k, 1);
      }
    }
    const debug = j.maxRuntime !== null && j.maxRuntime <= IMPORT_DEBUG_MAX_DURATION && j.gpus <= IMPORT_DEBUG_MAX_GPUS;
    const over = !debug && h + j.gpus > (shareGpus.get(j.budget) ?? 0);
    out[i] = over ? { ...j, minRuntime: 0 } : j;
    list.push({ end: j.submit + j.duration, gpus: j.gpus });
    h += j.gpus;
    held.set(j.budget, h);
  }
  return out;
}

/** FNV-1a of a string, as a fraction in [0, 1): a fixed, platform-independent draw per job id. */
export function idFraction(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 0x100000000;
}

/**
 * `unallocatedFraction` option: per budget (its path below the root), that fraction of its regular
 * (non-debug) jobs gets min_runtime 0 and runs as unallocated work (SPEC §2). Which jobs is decided
 * by a hash of the job id (idFraction < fraction), so the choice is the same on every run and every
 * policy, and independent of the window kept. Debug-lane jobs keep their contract. Throws on a
 * fraction outside [0, 1] or a budget no imported job is charged to. Returns new job objects.
 */
export function markUnallocatedFraction(jobs: readonly SimJob[], fractions: Readonly<Record<string, number>>): SimJob[] {
  const budgets = new Set(jobs.map((j) => j.budget));
  for (const [budget, f] of Object.entries(fractions)) {
    if (typeof f !== "number" || !Number.isFinite(f) || f < 0 || f > 1)
      throw new Error(`unallocatedFraction.${budget}: must be a number from 0 to 1`);
    if (!budgets.has(budget)) throw new Error(`unallocatedFraction.${budget}: no imported job is charged to budget "${budget}"`);
  }
  return jobs.map((j) => {
    const f = fractions[j.budget];
    if (f === undefined || f === 0) return j;
    const debug = j.maxRuntime !== null && j.maxRuntime <= IMPORT_DEBUG_MAX_DURATION && j.gpus <= IMPORT_DEBUG_MAX_GPUS;
    return !debug && idFraction(j.id) < f ? { ...j, minRuntime: 0 } : j;
  });
}

/**
 * `teams` option: every key must name a `what` (a Philly VC, a Helios user) that the trace has, and
 * every value a budget path below the root such as "division/team". Throws on the first that does not.
 */
export function checkTeams(teams: Readonly<Record<string, string>>, known: ReadonlySet<string>, what: string): void {
  for (const [key, path] of Object.entries(teams)) {
    if (!known.has(key)) throw new Error(`teams.${key}: no ${what} "${key}" in the trace`);
    if (typeof path !== "string" || !/^[^/\s]+(\/[^/\s]+)*$/.test(path))
      throw new Error(`teams.${key}: must be a budget path below the root such as "division/team"`);
  }
}
