import {
  defaultPolicy,
  effectiveAllocations,
  isHealthyCapacity,
  runCycle,
  type ClusterSnapshot,
  type CycleResult,
  type PendingJob,
  type PolicyConfig,
  type PreemptOp,
  type StartOp,
} from "@tranche/scheduler-core";

export interface HarnessOptions {
  policy?: PolicyConfig;
  /** How long each job really runs once started, seconds (default: its maxRuntime, else forever). */
  durations?: Record<string, number>;
  now?: number;
}

/**
 * A minimal plan applier for multi-cycle scenarios (Nomad-style harness): runs cycles on a snapshot,
 * applies their plans the way the worker would, and advances virtual time (usage and entitlement
 * accrue, jobs finish). Simplifications: preempted jobs exit at once on SIGTERM, the window never
 * slides. The simulator is the full-fidelity version; this one keeps scenario tests small.
 */
export class Harness {
  readonly snapshot: ClusterSnapshot;
  now: number;
  readonly policy: PolicyConfig;
  readonly results: CycleResult[] = [];
  readonly starts: (StartOp & { at: number })[] = [];
  readonly preemptions: (PreemptOp & { at: number })[] = [];
  readonly finished: { jobId: string; at: number }[] = [];
  private readonly durations: Record<string, number>;
  private readonly silent = new Set<string>();

  constructor(snapshot: ClusterSnapshot, opts: HarnessOptions = {}) {
    this.snapshot = JSON.parse(JSON.stringify(snapshot)) as ClusterSnapshot;
    this.policy = opts.policy ?? { ...defaultPolicy };
    this.durations = { ...(opts.durations ?? {}) };
    this.now = opts.now ?? 0;
  }

  submit(job: PendingJob, duration?: number): this {
    this.snapshot.pending.push({ ...job });
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
    const n = this.snapshot.nodes.find((x) => x.id === nodeId);
    if (n) n.health = "UNHEALTHY";
    return this;
  }

  /** One cycle at the current time, its plan applied. */
  cycle(): CycleResult {
    const result = runCycle(this.snapshot, this.policy, this.now);
    this.results.push(result);
    const s = this.snapshot;
    for (const op of result.plan) {
      if (op.op === "NODE_STATE") {
        const n = s.nodes.find((x) => x.id === op.nodeId);
        if (n) n.state = op.to;
      } else if (op.op === "LOST" || op.op === "PREEMPT" || op.op === "KILL") {
        const i = s.running.findIndex((j) => j.id === op.jobId);
        if (i < 0) continue;
        const [job] = s.running.splice(i, 1);
        if (op.op === "PREEMPT") this.preemptions.push({ ...op, at: this.now });
        if (job && op.op !== "KILL" && op.requeue) {
          const { startedAt: _s, placement: _p, charged: _c, stopping: _t, ...rest } = job;
          s.pending.push({ ...rest, requeuedAt: this.now });
        }
      } else if (op.op === "START") {
        const i = s.pending.findIndex((j) => j.id === op.jobId);
        if (i < 0) continue;
        const [job] = s.pending.splice(i, 1);
        s.running.push({ ...job!, startedAt: this.now, placement: op.placement, charged: op.charged, stopping: null });
        this.starts.push({ ...op, at: this.now });
      }
    }
    // Like the worker: the next cycle sees this cycle's reservations (they guard the debug lane).
    s.reservations = result.reservations;
    return result;
  }

  /** Advances virtual time: charged runs accrue usage, entitlement accrues, jobs that are done leave. */
  advance(dt: number): this {
    const s = this.snapshot;
    const end = this.now + dt;
    const leaf = new Map(s.tree.map((t) => [t.id, t]));
    for (const j of s.running) {
      const dur = this.durations[j.id] ?? j.maxRuntime ?? Infinity;
      const from = Math.max(j.startedAt, this.now);
      const to = Math.min(end, j.startedAt + dur);
      if (j.charged && to > from) {
        const t = leaf.get(j.budgetId);
        if (t) t.usageGpuSeconds += j.gpus * (to - from);
      }
    }
    const eff = effectiveAllocations(s.tree);
    const healthy = s.nodes.filter(isHealthyCapacity).reduce((a, n) => a + n.gpuCount, 0);
    for (const t of s.tree) t.entitlementGpuSeconds += Math.round((eff.get(t.id) ?? 0) * healthy * dt);
    s.running = s.running.filter((j) => {
      const dur = this.durations[j.id] ?? j.maxRuntime ?? Infinity;
      if (j.startedAt + dur <= end) {
        this.finished.push({ jobId: j.id, at: j.startedAt + dur });
        return false;
      }
      return true;
    });
    for (const n of s.nodes) if (n.lastHeartbeatAt !== null && !this.silent.has(n.id)) n.lastHeartbeatAt = end;
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
