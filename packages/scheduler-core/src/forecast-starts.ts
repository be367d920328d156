import { effectiveAllocations } from "./budget-tree";
import { applyPlan, graceEnded, snapshotOf, type ClusterModel, type ModelJob } from "./cluster-model";
import { isAllocated, protectionEnd, requeueAfterPreemption } from "./contract";
import { formatDuration } from "./format";
import { FORECAST_WHY, HORIZON_WHY_START } from "./forecast-words";
import { compareJobIds } from "./order-pending";
import { runCycle } from "./run-cycle";
import type { ClusterSnapshot, DependencyState, PendingReasonCode, PolicyConfig, RunningJob } from "./types";

/**
 * R10 start forecast: when the core expects each pending job to start if nothing new arrives (like
 * Slurm's `squeue --start`). It replays the core's own cycle on the known state: advance virtual time
 * to the next known event (a protection end, a maxRuntime end, a grace end, a reservation's start),
 * run the cycle there, apply its plan with the pure cluster model, repeat until every pending job
 * started or the horizon.
 *
 * What it assumes, so the figure is an upper bound on the wait when nothing new comes:
 * - running jobs run until their maxRuntime (then the core KILLs them and they leave at the end of
 *   their grace); a job with no maxRuntime runs for ever unless the core's rules preempt it (after its
 *   protection ends, by R3/R4); a job waiting for such a job gets no time ("no known end");
 * - jobs already stopping leave at the end of their grace; a preempted one is requeued as the core
 *   decided (it competes again), one stopped for another reason (kill, cancel, drain) leaves;
 * - a job waiting for another (`--after`) may start once that one leaves in the replay: one that
 *   reaches its maxRuntime counts as completed (the replay's stand-in for its end);
 * - agents keep reporting (no node times out); budgets' usage grows as their charged jobs run and
 *   entitlement as time passes (allocation x healthy GPUs), and nothing leaves the lookback window.
 */

export type ForecastUnknown =
  | "HELD"
  | "INVALID_CONTRACT"
  | "NODE_LIST"
  | "DEPENDENCY"
  | "OVER_USER_LIMIT"
  | "NODES_OUT"
  | "NO_KNOWN_END"
  | "HORIZON"
  | "BEYOND";

export interface StartForecast {
  jobId: string;
  /** Expected start (the START's startBy in the replay), null when unknown (see `unknown`). */
  at: number | null;
  /** The virtual time of the cycle that takes it (`at` is later when it waits for victims to exit). */
  decidedAt: number | null;
  /**
   * The jobs it waits for, by id: those whose GPUs it takes (running now or started ahead of it in the
   * replay) that still held them in the cycle before it starts, and, for an array task its array's cap
   * held, the tasks of its array whose end made room for it.
   */
  after: string[];
  /** Why `at` is null; null when it is known. */
  unknown: ForecastUnknown | null;
  /** The same in plain words, for people; null when known. */
  why: string | null;
}

export interface ForecastOptions {
  /** Stop looking this far past `now`, seconds (default 7 days). */
  horizon?: number;
  /** At most this many cycles (default 100): bounds the cost on huge queues. */
  maxSteps?: number;
  /**
   * Events closer than this to the previous cycle wait for a later one, seconds: max(minStep,
   * stepFraction x time since now). Defaults 60 s and 0.1: a forecast an hour out is good to about 6
   * minutes, and the number of cycles grows with the log of the horizon, not with the running jobs.
   */
  minStep?: number;
  stepFraction?: number;
  /** Only the first this many jobs of the order are forecast (default all); the rest get BEYOND. */
  maxJobs?: number;
}

export interface ForecastResult {
  /** One per pending job of the snapshot, in the snapshot's order. */
  starts: StartForecast[];
  /** The virtual times the replay ran a cycle at, in order (the first is `now`). */
  cycleTimes: number[];
  /** The first cycle's order of the pending jobs (who is ahead of whom now). */
  order: string[];
}

export const FORECAST_DEFAULT_HORIZON = 7 * 86_400;
export const FORECAST_DEFAULT_MAX_STEPS = 100;

const WHY = FORECAST_WHY;

export function forecastStarts(
  snapshot: ClusterSnapshot,
  policy: PolicyConfig,
  now: number,
  options: ForecastOptions = {},
): ForecastResult {
  const horizon = options.horizon ?? FORECAST_DEFAULT_HORIZON;
  const maxSteps = options.maxSteps ?? FORECAST_DEFAULT_MAX_STEPS;
  const minStep = options.minStep ?? 60;
  const stepFraction = options.stepFraction ?? 0.1;
  const ahead = options.maxJobs === undefined ? null : head(snapshot, policy, now, options.maxJobs);
  const kept = ahead ? { ...snapshot, pending: snapshot.pending.filter((p) => ahead.has(p.id)) } : snapshot;
  let model = modelOf(kept, policy);
  const targets = new Set(kept.pending.map((p) => p.id));
  const started = new Map<string, { at: number; decidedAt: number; after: string[] }>();
  // Who last held each GPU ("node/index" -> job id), for "after #81 and #94".
  const holder = new Map<string, string>();
  for (const r of snapshot.running)
    for (const p of r.placement) for (const g of p.gpuIndexes) holder.set(`${p.nodeId}/${g}`, r.id);
  // The jobs holding GPUs at the end of the previous cycle, with their array: a GPU's last holder that
  // left before then was not in the way (the job waited for something else, e.g. its array's cap).
  let holding = holdingOf(model);

  const cycleTimes: number[] = [];
  // How the jobs that left the replay ended, for the jobs that wait for them (`--after`).
  const ended = new Map<string, DependencyState>();
  let lastCodes = new Map<string, PendingReasonCode>();
  // Jobs whose node lists left them no node in service in the last cycle (a reason with its problem).
  let noNode = new Set<string>();
  // Jobs the last cycle held back with a per-user limit smaller than the job itself: no end of another
  // job lets them start, so the running jobs are not what they wait for.
  let overLimit = new Set<string>();
  let t = now;
  let outOfTime = false;
  let order: string[] = [];
  for (;;) {
    if (cycleTimes.length >= maxSteps || t > now + horizon) {
      outOfTime = true;
      break;
    }
    cycleTimes.push(t);
    model = graceEnded(heard(model, t), t);
    noteEnded(model, ended);
    model = withDependencies(model, ended);
    const result = runCycle(snapshotOf(model), policy, t);
    if (cycleTimes.length === 1) order = result.order;
    model = applyPlan(model, result.plan, t, result.reservations);
    const state = new Map(model.jobs.map((j) => [j.job.id, j]));
    for (const op of result.plan) {
      if (op.op !== "START" || state.get(op.jobId)?.state !== "RUNNING") continue;
      const keys = op.placement.flatMap((p) => p.gpuIndexes.map((g) => `${p.nodeId}/${g}`));
      if (targets.has(op.jobId) && !started.has(op.jobId)) {
        const before = new Set<string>();
        for (const k of keys) {
          const h = holder.get(k);
          if (h !== undefined && h !== op.jobId && holding.has(h)) before.add(h);
        }
        // Held by its array's cap last cycle: it waited for the tasks of its array that have left since.
        const arrayId = state.get(op.jobId)!.job.arrayId;
        if (lastCodes.get(op.jobId) === "ARRAY_LIMIT" && arrayId != null)
          for (const [id, a] of holding) if (a === arrayId && !holds(state.get(id))) before.add(id);
        started.set(op.jobId, { at: op.startBy, decidedAt: t, after: [...before].sort(compareJobIds) });
      }
      for (const k of keys) holder.set(k, op.jobId);
    }
    lastCodes = new Map();
    overLimit = new Set();
    noNode = new Set();
    for (const [id, reason] of result.pending) {
      lastCodes.set(id, reason.code);
      if (reason.code === "NODE_CONSTRAINT" && reason.details.problem !== undefined) noNode.add(id);
      if (reason.code === "USER_LIMIT" && reason.details.gpus > (reason.details.userLimit ?? Infinity)) overLimit.add(id);
    }
    noteEnded(model, ended);
    model = { ...model, jobs: model.jobs.filter(live) };
    holding = holdingOf(model);
    if ([...targets].every((id) => started.has(id))) break;
    const event = nextEvent(model, t);
    if (event === null) break;
    const next = Math.max(event, t + Math.max(minStep, Math.round(stepFraction * (t - now))));
    model = accrueWindow(model, t, next);
    t = next;
  }

  // How far the replay looked, in the words: its bound is cycles as well as days, so "the horizon" alone
  // read as a week to a person whose job the replay stopped looking for after a few hours.
  const last = cycleTimes.length > 0 ? cycleTimes[cycleTimes.length - 1]! : now;
  const reached = `${HORIZON_WHY_START} ${formatDuration(Math.max(60, last - now))} that the forecast looks ahead`;
  const starts = snapshot.pending.map((p): StartForecast => {
    const s = started.get(p.id);
    if (s) return { jobId: p.id, at: s.at, decidedAt: s.decidedAt, after: s.after, unknown: null, why: null };
    if (ahead && !ahead.has(p.id))
      return { jobId: p.id, at: null, decidedAt: null, after: [], unknown: "BEYOND", why: WHY.BEYOND };
    const code = lastCodes.get(p.id);
    const unknown: ForecastUnknown =
      code === "HELD" || p.held
        ? "HELD"
        : code === "INVALID_CONTRACT"
          ? "INVALID_CONTRACT"
          : noNode.has(p.id)
            ? "NODE_LIST"
            : code === "DEPENDENCY" || code === "DEPENDENCY_NEVER_SATISFIED"
              ? "DEPENDENCY"
              : overLimit.has(p.id)
                ? "OVER_USER_LIMIT"
                : code === "CLUSTER_DRAINING"
                  ? "NODES_OUT"
                  : outOfTime
                    ? "HORIZON"
                    : "NO_KNOWN_END";
    return { jobId: p.id, at: null, decidedAt: null, after: [], unknown, why: unknown === "HORIZON" ? reached : WHY[unknown] };
  });
  return { starts, cycleTimes, order };
}

/** The first `n` jobs of this cycle's order, and every HELD or unordered job (they cost nothing). */
function head(snapshot: ClusterSnapshot, policy: PolicyConfig, now: number, n: number): Set<string> {
  if (snapshot.pending.length <= n) return new Set(snapshot.pending.map((p) => p.id));
  const order = runCycle(snapshot, policy, now).order;
  const ordered = new Set(order);
  return new Set([...order.slice(0, n), ...snapshot.pending.filter((p) => !ordered.has(p.id)).map((p) => p.id)]);
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const live = (j: ModelJob): boolean =>
  j.state === "PENDING" || j.state === "HELD" || j.state === "RUNNING" || j.state === "STOPPING";

const holds = (j: ModelJob | undefined): boolean => j?.state === "RUNNING" || j?.state === "STOPPING";

/** The jobs holding GPUs (running or leaving), by id, with their array's id (null when none). */
function holdingOf(model: ClusterModel): Map<string, string | null> {
  return new Map(model.jobs.filter(holds).map((j) => [j.job.id, j.job.arrayId ?? null]));
}

/** How the jobs that left ended; a job stopped at its maxRuntime is the replay's stand-in for a completed one. */
function noteEnded(model: ClusterModel, ended: Map<string, DependencyState>): void {
  for (const j of model.jobs)
    if (!live(j)) ended.set(j.job.id, j.state === "KILLED" ? "COMPLETED" : (j.state as DependencyState));
}

/** Jobs waiting for others see how those ended in the replay. */
function withDependencies(model: ClusterModel, ended: ReadonlyMap<string, DependencyState>): ClusterModel {
  if (ended.size === 0) return model;
  let changed = false;
  const jobs = model.jobs.map((j) => {
    const deps = j.job.dependencies;
    if (!deps || !deps.some((d) => d.state === "WAITING" && ended.has(d.jobId))) return j;
    changed = true;
    return {
      ...j,
      job: {
        ...j.job,
        dependencies: deps.map((d) => (d.state === "WAITING" && ended.has(d.jobId) ? { ...d, state: ended.get(d.jobId)! } : d)),
      },
    };
  });
  return changed ? { ...model, jobs } : model;
}

/** Agents keep reporting during the forecast: no node that is up times out in virtual time. */
function heard(model: ClusterModel, t: number): ClusterModel {
  return { ...model, nodes: model.nodes.map((n) => (n.state === "DOWN" ? n : { ...n, lastHeartbeatAt: t })) };
}

/** The window aggregates between two cycles: charged runs add usage, time adds entitlement. */
export function accrueWindow(model: ClusterModel, from: number, to: number): ClusterModel {
  const used = new Map<string, number>();
  for (const j of model.jobs) {
    const run = j.run;
    if (!run || !run.charged) continue;
    const end = j.state === "STOPPING" && run.graceUntil !== null ? Math.min(to, run.graceUntil) : to;
    const secs = end - Math.max(from, run.startedAt);
    if (secs > 0) used.set(j.job.budgetId, (used.get(j.job.budgetId) ?? 0) + j.job.gpus * secs);
  }
  const healthy = model.nodes
    .filter((n) => n.health === "HEALTHY" && n.state !== "DOWN" && n.state !== "REPAIR")
    .reduce((a, n) => a + n.gpuCount, 0);
  const alloc = effectiveAllocations(model.tree);
  const tree = model.tree.map((n) => ({
    ...n,
    usageGpuSeconds: n.usageGpuSeconds + (used.get(n.id) ?? 0),
    entitlementGpuSeconds: n.entitlementGpuSeconds + Math.round((alloc.get(n.id) ?? 0) * healthy * (to - from)),
  }));
  return { ...model, tree };
}

/** The earliest known time after `t` at which the core could decide something new. */
function nextEvent(model: ClusterModel, t: number): number | null {
  let next = Infinity;
  const consider = (x: number | null | undefined): void => {
    if (x !== null && x !== undefined && x > t && x < next) next = x;
  };
  for (const j of model.jobs) {
    const run = j.run;
    if (!run) continue;
    if (j.state === "STOPPING") consider(run.graceUntil);
    else {
      if (j.job.maxRuntime !== null) consider(run.startedAt + j.job.maxRuntime);
      consider(run.protectedUntil);
      consider(run.startedAt);
    }
  }
  for (const r of model.reservations) consider(r.from);
  return next === Infinity ? null : next;
}

/** The snapshot as a cluster model: running jobs with the run the core recorded, pending jobs as they are. */
function modelOf(snapshot: ClusterSnapshot, policy: PolicyConfig): ClusterModel {
  const alloc = effectiveAllocations(snapshot.tree);
  const entitled = new Set(
    snapshot.tree.filter((n) => n.entitlementGpuSeconds > 0 && (alloc.get(n.id) ?? 0) > 0).map((n) => n.id),
  );
  const running = snapshot.running.map((r): ModelJob => runningModelJob(r, entitled.has(r.budgetId), policy));
  const pending = snapshot.pending.map((p): ModelJob => ({ job: p, state: p.held ? "HELD" : "PENDING", run: null, requeues: 0 }));
  return {
    cluster: snapshot.cluster,
    tree: snapshot.tree,
    nodes: snapshot.nodes.map((n) => ({ ...n, manualDrain: false })),
    jobs: [...running, ...pending].sort((a, b) => byId(a.job.id, b.job.id)),
    reservations: snapshot.reservations ?? [],
  };
}

function runningModelJob(r: RunningJob, entitled: boolean, policy: PolicyConfig): ModelJob {
  const charged = r.charged ?? isAllocated(r, entitled);
  const preempted = r.stopping ? r.stopping.byJobId !== null : false;
  const { startedAt, placement, stopping, ...job } = r;
  return {
    job,
    state: stopping ? "STOPPING" : "RUNNING",
    requeues: 0,
    run: {
      startedAt,
      placement,
      charged,
      lane: "ALLOCATED",
      protectedUntil: charged ? protectionEnd(r, charged, policy) : null,
      intent: stopping ? (preempted ? "PREEMPT" : "KILL") : null,
      graceUntil: stopping ? stopping.graceUntil : null,
      requeue: preempted && requeueAfterPreemption(r),
      byJobId: stopping ? stopping.byJobId : null,
    },
  };
}
