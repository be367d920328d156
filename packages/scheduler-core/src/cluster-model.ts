import { requeueAfterPreemption } from "./contract";
import { runOutcome, nodeStateAfterReport, type RunEndCause, type StopIntent } from "./lifecycle";
import type {
  BudgetTreeNode,
  Cluster,
  ClusterSnapshot,
  JobLane,
  Node,
  PendingJob,
  Placement,
  PlanOp,
  Reservation,
  RunningJob,
  StartOp,
} from "./types";

/**
 * One cluster model: what the world looks like between cycles and how a plan and the events between
 * cycles change it. Pure (every function returns a new model and leaves its input alone). The testkit
 * harness drives it; the database applier (packages/domain/src/runtime/apply-plan.ts) is checked
 * against it step by step by a conformance test; the simulator applies the same per-op rules.
 */

export type ModelJobState =
  "PENDING" | "HELD" | "RUNNING" | "STOPPING" | "COMPLETED" | "FAILED" | "PREEMPTED" | "CANCELLED" | "KILLED" | "LOST";

/** The current run of a RUNNING or STOPPING job. */
export interface ModelRun {
  /** The START's startBy: the job holds its GPUs from the cycle on and launches by then. */
  startedAt: number;
  placement: Placement[];
  charged: boolean;
  /** The lane the core recorded at START. */
  lane: JobLane;
  /** null for unallocated runs. */
  protectedUntil: number | null;
  intent: StopIntent | null;
  /** SIGKILL time of a stopping run. */
  graceUntil: number | null;
  /** The core's requeue decision for this stop (PREEMPT op). */
  requeue: boolean;
  byJobId: string | null;
}

export interface ModelJob {
  /** The job as submitted; `requeuedAt` is set on every requeue. */
  job: PendingJob;
  state: ModelJobState;
  run: ModelRun | null;
  requeues: number;
  /**
   * R12: the old copy of a moved job, winding down (SIGKILL at graceUntil) while `run` waits on its
   * new GPUs for it to exit. Its GPUs are the preemptor's already (the core moves a job only then).
   */
  leaving?: { placement: Placement[]; graceUntil: number } | null;
}

export interface ModelNode extends Node {
  /** An operator put it into maintenance: its repair ends only when they say so. */
  manualDrain: boolean;
}

export interface ClusterModel {
  cluster: Cluster;
  tree: BudgetTreeNode[];
  nodes: ModelNode[];
  /** By job id order of submission. */
  jobs: ModelJob[];
  /** The previous cycle's reservations (they guard the debug lane in the next one). */
  reservations: Reservation[];
}

export function createClusterModel(cluster: Cluster, nodes: readonly Node[], tree: readonly BudgetTreeNode[]): ClusterModel {
  return {
    cluster,
    tree: tree.map((t) => ({ ...t })),
    nodes: nodes.map((n) => ({ ...n, manualDrain: false })),
    jobs: [],
    reservations: [],
  };
}

/** The snapshot the core decides on: RUNNING and STOPPING jobs are running, PENDING and HELD pending. */
export function snapshotOf(model: ClusterModel): ClusterSnapshot {
  const running: RunningJob[] = [];
  const pending: PendingJob[] = [];
  for (const m of model.jobs) {
    if ((m.state === "RUNNING" || m.state === "STOPPING") && m.run) {
      running.push({
        ...m.job,
        startedAt: m.run.startedAt,
        placement: m.run.placement,
        charged: m.run.charged,
        stopping: m.state === "STOPPING" ? { byJobId: m.run.byJobId, graceUntil: m.run.graceUntil ?? 0 } : null,
      });
    } else if (m.state === "PENDING" || m.state === "HELD") pending.push({ ...m.job, held: m.state === "HELD" });
  }
  return {
    cluster: model.cluster,
    nodes: model.nodes.map(({ manualDrain: _m, ...n }) => n),
    tree: model.tree,
    running,
    pending,
    reservations: model.reservations,
  };
}

export function submitJob(model: ClusterModel, job: PendingJob): ClusterModel {
  return { ...model, jobs: [...model.jobs, { job: { ...job }, state: job.held ? "HELD" : "PENDING", run: null, requeues: 0 }] };
}

const withJob = (model: ClusterModel, jobId: string, f: (m: ModelJob) => ModelJob): ClusterModel => ({
  ...model,
  jobs: model.jobs.map((m) => (m.job.id === jobId ? f(m) : m)),
});

const withNode = (model: ClusterModel, nodeId: string, f: (n: ModelNode) => ModelNode): ClusterModel => ({
  ...model,
  nodes: model.nodes.map((n) => (n.id === nodeId ? f(n) : n)),
});

/** A run ends: the job moves on as runOutcome says (requeued jobs are pending again, original submit time kept). */
function endRun(m: ModelJob, now: number, end: { cause: RunEndCause; exitCode: number | null; requeue?: boolean }): ModelJob {
  if ((m.state !== "RUNNING" && m.state !== "STOPPING") || !m.run) return m;
  const out = runOutcome(
    {
      stopping: m.state === "STOPPING",
      intent: m.run.intent,
      // A run nobody asked to stop has no stored decision: the job's own contract decides (as in the database).
      requeue: end.requeue ?? (m.state === "STOPPING" ? m.run.requeue : requeueAfterPreemption(m.job)),
    },
    { cause: end.cause, exitCode: end.exitCode },
  );
  if (out.requeued) return { job: { ...m.job, requeuedAt: now }, state: "PENDING", run: null, requeues: m.requeues + 1 };
  return { ...m, state: out.state, run: null };
}

function stopRun(m: ModelJob, intent: StopIntent, graceUntil: number, requeue: boolean, byJobId: string | null): ModelJob {
  if (m.state !== "RUNNING" || !m.run) return m;
  return { ...m, state: "STOPPING", run: { ...m.run, intent, graceUntil, requeue, byJobId } };
}

function startRun(m: ModelJob, op: StartOp): ModelJob {
  // A move: the job was stopped by this plan; its old copy leaves while the new run waits for it.
  const moving = isMove(op) && m.state === "STOPPING" && m.run !== null && m.run.graceUntil !== null;
  if (m.state !== "PENDING" && !moving) return m;
  return {
    ...m,
    leaving: moving ? { placement: m.run!.placement, graceUntil: m.run!.graceUntil! } : null,
    state: "RUNNING",
    run: {
      startedAt: op.startBy,
      placement: op.placement,
      charged: op.charged,
      lane: op.lane,
      protectedUntil: op.charged ? op.protectedUntil : null,
      intent: null,
      graceUntil: null,
      requeue: false,
      byJobId: null,
    },
  };
}

/** R12: a START that relaunches a job the same plan moves (it waits for its own exit). */
export function isMove(op: StartOp): boolean {
  return op.afterExitOf.includes(op.jobId);
}

/**
 * The STARTs of a plan that can still happen on this model: the job is still pending and every node
 * of its placement is READY once the plan's node moves are applied. The others are dropped, and so
 * are the PREEMPTs made for them: a victim is never stopped for a start that will not happen.
 *
 * A move (isMove) can happen when the job is still RUNNING (`jobState` says so), its nodes are READY
 * and the start its CONSOLIDATION preemption was made for can happen; otherwise it is dropped and the
 * job, if preempted at all, is requeued like any victim.
 */
export function viableStarts(
  plan: readonly PlanOp[],
  jobState: (jobId: string) => string | undefined,
  nodeState: (nodeId: string) => string | undefined,
): Set<string> {
  const ok = new Set<string>();
  const ready = (op: StartOp) => op.placement.every((p) => nodeState(p.nodeId) === "READY");
  let moves = false;
  for (const op of plan)
    if (op.op === "START") {
      if (isMove(op)) moves = true;
      else if (jobState(op.jobId) === "PENDING" && ready(op)) ok.add(op.jobId);
    }
  if (!moves) return ok;
  const movedFor = new Map<string, string | null>();
  for (const op of plan) if (op.op === "PREEMPT" && op.reasonCode === "CONSOLIDATION") movedFor.set(op.jobId, op.byJobId);
  for (const op of plan)
    if (op.op === "START" && isMove(op) && jobState(op.jobId) === "RUNNING" && ready(op)) {
      const by = movedFor.get(op.jobId);
      if (by !== undefined && by !== null && ok.has(by)) ok.add(op.jobId);
    }
  return ok;
}

/**
 * Applies a cycle's plan the way the worker's transaction does: node moves (only from the state the
 * core saw), lost jobs, preemptions then maxRuntime kills (a job stops once), then the starts that can
 * still happen (see viableStarts). RESERVE ops only live in `reservations`.
 */
export function applyPlan(model: ClusterModel, plan: readonly PlanOp[], now: number, reservations?: Reservation[]): ClusterModel {
  let m: ClusterModel = reservations ? { ...model, reservations } : model;
  // A planned drain that fired is done (the worker clears it too): a node back from repair keeps no plan.
  for (const op of plan)
    if (op.op === "NODE_STATE")
      m = withNode(m, op.nodeId, (n) =>
        n.state !== op.from ? n : op.reason === "PLANNED_DRAIN" ? { ...n, state: op.to, drainAt: null } : { ...n, state: op.to },
      );
  for (const op of plan)
    if (op.op === "LOST") m = withJob(m, op.jobId, (j) => endRun(j, now, { cause: "lost", exitCode: null, requeue: op.requeue }));
  // Before the plan's stops: a move is viable only for a job still RUNNING.
  const states = new Map(m.jobs.map((j) => [j.job.id, j.state as string]));
  const nodes = new Map(m.nodes.map((n) => [n.id, n.state]));
  const go = viableStarts(
    plan,
    (id) => states.get(id),
    (id) => nodes.get(id),
  );
  for (const op of plan)
    if (op.op === "PREEMPT" && (op.byJobId === null || go.has(op.byJobId)))
      m = withJob(m, op.jobId, (j) => stopRun(j, "PREEMPT", op.graceUntil, op.requeue, op.byJobId));
  for (const op of plan) if (op.op === "KILL") m = withJob(m, op.jobId, (j) => stopRun(j, "KILL", op.graceUntil, false, null));
  for (const op of plan) if (op.op === "START" && go.has(op.jobId)) m = withJob(m, op.jobId, (j) => startRun(j, op));
  return m;
}

/**
 * The agent reports the job's processes gone at `at` (exit code null: killed by a signal); `cause` says
 * whether the agent itself stopped them (fenced, or shut down with the platform). For a job being moved
 * (R12) those are its old copy's: the new run launches only after them, so it is the one that ended,
 * and the job goes on running.
 */
export function runExited(
  model: ClusterModel,
  jobId: string,
  exitCode: number | null,
  at: number,
  cause: Exclude<RunEndCause, "lost"> = "exit",
): ClusterModel {
  return withJob(model, jobId, (j) => (j.leaving ? { ...j, leaving: null } : endRun(j, at, { cause, exitCode })));
}

/** SIGKILL: every stopping job (and moved job's old copy) whose grace ended by `now` exits at its graceUntil. */
export function graceEnded(model: ClusterModel, now: number): ClusterModel {
  let m = model;
  for (const j of model.jobs) {
    if (j.leaving && j.leaving.graceUntil <= now) {
      m = runExited(m, j.job.id, null, j.leaving.graceUntil);
      continue;
    }
    const until = j.run?.graceUntil ?? null;
    if (j.state === "STOPPING" && until !== null && until <= now) m = runExited(m, j.job.id, null, until);
  }
  return m;
}

/** An owner or operator cancels a job: pending jobs end at once, running ones stop with the given grace. */
export function cancelJob(model: ClusterModel, jobId: string, graceUntil: number): ClusterModel {
  return withJob(model, jobId, (j) =>
    j.state === "PENDING" || j.state === "HELD" ? { ...j, state: "CANCELLED" } : stopRun(j, "CANCEL", graceUntil, false, null),
  );
}

/**
 * The node's agent reports (a heartbeat): health, heartbeat time and the transition it decides
 * (nodeStateAfterReport). A missed heartbeat is the absence of this call: the next cycle's core
 * moves the node DOWN past the timeout and its jobs are LOST (R9).
 */
export function nodeReported(model: ClusterModel, nodeId: string, healthy: boolean, now: number): ClusterModel {
  return withNode(model, nodeId, (n) => {
    const to = nodeStateAfterReport(
      { state: n.state, heardFrom: n.lastHeartbeatAt !== null, manualDrain: n.manualDrain },
      healthy,
    );
    return {
      ...n,
      health: healthy ? "HEALTHY" : "UNHEALTHY",
      lastHeartbeatAt: now,
      state: to ?? n.state,
      manualDrain: to === "READY" ? false : n.manualDrain,
    };
  });
}

/** An operator puts a node into maintenance (manual drain) or cordons it. */
export function operatorMovedNode(model: ClusterModel, nodeId: string, to: "DRAINING" | "CORDONED" | "READY"): ClusterModel {
  return withNode(model, nodeId, (n) => ({
    ...n,
    state: to,
    manualDrain: to === "DRAINING" ? true : to === "READY" ? false : n.manualDrain,
  }));
}

/** A job's current state, for tests and the harness. */
export function jobStateOf(model: ClusterModel, jobId: string): ModelJobState | undefined {
  return model.jobs.find((j) => j.job.id === jobId)?.state;
}
