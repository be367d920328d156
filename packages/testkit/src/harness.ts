import {
  applyPlan,
  createClusterModel,
  createScheduler,
  defaultPolicy,
  effectiveAllocations,
  graceEnded,
  isHealthyCapacity,
  isMove,
  nodeReported,
  runCycle,
  runExited,
  snapshotOf,
  submitJob,
  type ClusterModel,
  type ClusterSnapshot,
  type CycleResult,
  type PendingJob,
  type PolicyConfig,
  type PreemptOp,
  type RuleSet,
  type Scheduler,
  type StartOp,
} from "@tranche/scheduler-core";

export interface HarnessOptions {
  policy?: PolicyConfig;
  /** How long each job really runs once started, seconds (default: its maxRuntime, else forever). */
  durations?: Record<string, number>;
  now?: number;
  /** The regime the cycles run under (default: fairshare's runCycle); e.g. the PRIORITY or FIFO baseline. */
  rules?: RuleSet;
}

/**
 * A multi-cycle scenario runner (Nomad-style harness) over the core's cluster model: runs cycles,
 * applies their plans with the core's applyPlan (the rules the worker's transaction is checked
 * against), and advances virtual time: usage and entitlement accrue, jobs finish after their
 * duration, stopping jobs exit at the end of their grace (or earlier when they finish). Simplification:
 * the window never slides. The simulator is the full-fidelity version; this one keeps scenario tests small.
 */
export class Harness {
  private model: ClusterModel;
  now: number;
  readonly policy: PolicyConfig;
  readonly results: CycleResult[] = [];
  readonly starts: (StartOp & { at: number })[] = [];
  readonly preemptions: (PreemptOp & { at: number })[] = [];
  readonly finished: { jobId: string; at: number }[] = [];
  /** R12: the relaunches of moved jobs that were applied (their old copies were preempted with CONSOLIDATION). */
  readonly moves: (StartOp & { at: number })[] = [];
  private readonly durations: Record<string, number>;
  private readonly silent = new Set<string>();
  private readonly scheduler: Scheduler | null;

  constructor(snapshot: ClusterSnapshot, opts: HarnessOptions = {}) {
    const s = JSON.parse(JSON.stringify(snapshot)) as ClusterSnapshot;
    this.policy = opts.policy ?? { ...defaultPolicy };
    this.durations = { ...(opts.durations ?? {}) };
    this.now = opts.now ?? 0;
    this.scheduler = opts.rules ? createScheduler(this.policy, opts.rules) : null;
    let m = createClusterModel(s.cluster, s.nodes, s.tree);
    for (const j of s.pending) m = submitJob(m, j);
    // Jobs the scenario starts with already running: their runs as a START of the core would record them.
    for (const r of s.running) {
      const { startedAt, placement, charged, stopping: _s, ...job } = r;
      const isCharged = charged ?? r.minRuntime > 0;
      m = submitJob(m, job);
      m = {
        ...m,
        jobs: m.jobs.map((x) =>
          x.job.id === r.id
            ? {
                ...x,
                state: "RUNNING",
                run: {
                  startedAt,
                  placement,
                  charged: isCharged,
                  lane: isCharged ? "ALLOCATED" : "UNALLOCATED",
                  protectedUntil: isCharged ? startedAt + r.minRuntime : null,
                  intent: null,
                  graceUntil: null,
                  requeue: false,
                  byJobId: null,
                },
              }
            : x,
        ),
      };
    }
    this.model = { ...m, reservations: s.reservations ?? [] };
  }

  /** The cluster model as it stands (jobs' runs, moved jobs' old copies, nodes). */
  get world(): ClusterModel {
    return this.model;
  }

  /** The snapshot the next cycle decides on. */
  get snapshot(): ClusterSnapshot {
    return snapshotOf(this.model);
  }

  submit(job: PendingJob, duration?: number): this {
    this.model = submitJob(this.model, job);
    if (duration !== undefined) this.durations[job.id] = duration;
    return this;
  }

  /** The node's agent stops sending heartbeats (R9). */
  silence(nodeId: string): this {
    this.silent.add(nodeId);
    return this;
  }

  /** The node's agent reports itself unhealthy (R8). */
  reportUnhealthy(nodeId: string): this {
    const n = this.model.nodes.find((x) => x.id === nodeId);
    if (n) this.model = nodeReported(this.model, nodeId, false, n.lastHeartbeatAt ?? this.now);
    if (n && n.lastHeartbeatAt === null)
      this.model = { ...this.model, nodes: this.model.nodes.map((x) => (x.id === nodeId ? { ...x, lastHeartbeatAt: null } : x)) };
    return this;
  }

  /** One cycle at the current time, its plan applied. */
  cycle(): CycleResult {
    const result = this.scheduler
      ? this.scheduler.runCycle(this.snapshot, this.now)
      : runCycle(this.snapshot, this.policy, this.now);
    this.results.push(result);
    for (const op of result.plan) {
      if (op.op === "PREEMPT") this.preemptions.push({ ...op, at: this.now });
    }
    const before = new Map(this.model.jobs.map((j) => [j.job.id, j.state]));
    // Like the worker: the next cycle sees this cycle's reservations (they guard the debug lane).
    this.model = applyPlan(this.model, result.plan, this.now, result.reservations);
    for (const op of result.plan) {
      if (op.op !== "START") continue;
      if (before.get(op.jobId) === "PENDING") this.starts.push({ ...op, at: this.now });
      else if (isMove(op) && this.model.jobs.find((j) => j.job.id === op.jobId)?.leaving)
        this.moves.push({ ...op, at: this.now });
    }
    return result;
  }

  /** Advances virtual time: charged runs accrue usage, entitlement accrues, finished and killed jobs leave. */
  advance(dt: number): this {
    const m = this.model;
    const end = this.now + dt;
    const tree = m.tree.map((t) => ({ ...t }));
    const leaf = new Map(tree.map((t) => [t.id, t]));
    const exits: { jobId: string; at: number; finished: boolean }[] = [];
    for (const j of m.jobs) {
      if (!j.run || (j.state !== "RUNNING" && j.state !== "STOPPING")) continue;
      const dur = this.durations[j.job.id] ?? j.job.maxRuntime ?? Infinity;
      const finishAt = j.run.startedAt + dur;
      const killAt = j.state === "STOPPING" && j.run.graceUntil !== null ? j.run.graceUntil : Infinity;
      const exitAt = Math.min(finishAt, killAt);
      const from = Math.max(j.run.startedAt, this.now);
      const to = Math.min(end, exitAt);
      if (j.run.charged && to > from) {
        const t = leaf.get(j.job.budgetId);
        if (t) t.usageGpuSeconds += j.job.gpus * (to - from);
      }
      if (finishAt <= end && finishAt <= killAt) exits.push({ jobId: j.job.id, at: finishAt, finished: true });
    }
    const eff = effectiveAllocations(tree);
    const healthy = m.nodes.filter(isHealthyCapacity).reduce((a, n) => a + n.gpuCount, 0);
    for (const t of tree) t.entitlementGpuSeconds += Math.round((eff.get(t.id) ?? 0) * healthy * dt);
    let next: ClusterModel = { ...m, tree };
    // A moved job's old copy exits (by its SIGKILL) before its new run launches, let alone finishes.
    for (const j of m.jobs)
      if (j.leaving && j.leaving.graceUntil <= end) next = runExited(next, j.job.id, null, j.leaving.graceUntil);
    for (const x of exits) {
      next = runExited(next, x.jobId, 0, x.at);
      this.finished.push({ jobId: x.jobId, at: x.at });
    }
    next = graceEnded(next, end);
    next = {
      ...next,
      nodes: next.nodes.map((n) => (n.lastHeartbeatAt !== null && !this.silent.has(n.id) ? { ...n, lastHeartbeatAt: end } : n)),
    };
    this.model = next;
    this.now = end;
    return this;
  }

  /** `cycles` times: a cycle, then `every` seconds. */
  run(cycles: number, every: number): this {
    for (let i = 0; i < cycles; i++) {
      this.cycle();
      this.advance(every);
    }
    return this;
  }

  startOf(jobId: string): (StartOp & { at: number }) | undefined {
    return this.starts.find((x) => x.jobId === jobId);
  }
}

export function createHarness(snapshot: ClusterSnapshot, opts?: HarnessOptions): Harness {
  return new Harness(snapshot, opts);
}
