import type { PendingJob, Placement, RunningJob } from "@tranche/scheduler-core";
import { seconds, type Duration } from "./duration";

let counter = 0;

/** Resets the automatic job ids ("job-1", "job-2", ...) so tests do not depend on each other. */
export function resetJobIds(): void {
  counter = 0;
}

/**
 * Fluent job builder: `makeJob("j1").budget("lab/nlp/p1").gpus(8).minRuntime("2h")`.
 * Defaults: 1 GPU, minRuntime 1h (allocated work), no maxRuntime, priority 0, resumable, submitted at
 * 0, user "alice", budget "lab/team/p1". `.on(node)` / `.startedAt(t)` make it a running job.
 */
export class JobBuilder {
  private job: PendingJob;
  private started: number | null = null;
  private readonly places: Placement[] = [];
  private chargedFlag: boolean | undefined = undefined;
  private stoppingState: RunningJob["stopping"] = null;

  constructor(id?: string) {
    this.job = {
      id: id ?? `job-${++counter}`,
      budgetId: "lab/team/p1",
      userId: "alice",
      submittedAt: 0,
      gpus: 1,
      minRuntime: 3600,
      maxRuntime: null,
      priority: 0,
      resumable: true,
      requeueOnPreempt: false,
      gracePeriod: null,
    };
  }

  get id(): string {
    return this.job.id;
  }

  /** Whether `.on()` or `.startedAt()` was called. */
  get isRunning(): boolean {
    return this.started !== null || this.places.length > 0;
  }

  name(name: string): this {
    this.job.name = name;
    return this;
  }
  budget(path: string): this {
    this.job.budgetId = path;
    return this;
  }
  user(userId: string): this {
    this.job.userId = userId;
    return this;
  }
  gpus(n: number): this {
    this.job.gpus = n;
    return this;
  }
  minRuntime(d: Duration): this {
    this.job.minRuntime = seconds(d);
    return this;
  }
  maxRuntime(d: Duration | null): this {
    this.job.maxRuntime = d === null ? null : seconds(d);
    return this;
  }
  priority(p: number): this {
    this.job.priority = p;
    return this;
  }
  resumable(b = true): this {
    this.job.resumable = b;
    return this;
  }
  requeueOnPreempt(b = true): this {
    this.job.requeueOnPreempt = b;
    return this;
  }
  grace(d: Duration | null): this {
    this.job.gracePeriod = d === null ? null : seconds(d);
    return this;
  }
  submittedAt(t: number): this {
    this.job.submittedAt = t;
    return this;
  }
  requeuedAt(t: number | null): this {
    this.job.requeuedAt = t;
    return this;
  }
  held(b = true): this {
    this.job.held = b;
    return this;
  }
  /** `--nodelist`: the only nodes (by name) it may run on. */
  onlyNodes(...names: string[]): this {
    this.job.nodes = names;
    return this;
  }
  /** `--exclude`: nodes (by name) it must never run on. */
  excludeNodes(...names: string[]): this {
    this.job.excludeNodes = names;
    return this;
  }
  /** Unallocated work: minRuntime 0. */
  unallocated(): this {
    this.job.minRuntime = 0;
    return this;
  }
  /** A debug-lane job: maxRuntime 10m, protected for its whole run. */
  debug(): this {
    this.job.maxRuntime = 600;
    this.job.minRuntime = 600;
    return this;
  }

  /** Running: latest start. */
  startedAt(t: number): this {
    this.started = t;
    return this;
  }
  /** Running on a node; GPU indexes default to the first `gpus` (or the whole node for multi-node jobs, see on(node, size)). */
  on(nodeId: string, gpuIndexes?: number[]): this {
    const idx = gpuIndexes ?? Array.from({ length: this.job.gpus }, (_, i) => i);
    this.places.push({ nodeId, gpuIndexes: idx });
    return this;
  }
  /** Running on whole nodes of `size` GPUs each. */
  onNodes(nodeIds: string[], size = 8): this {
    for (const n of nodeIds) this.places.push({ nodeId: n, gpuIndexes: Array.from({ length: size }, (_, i) => i) });
    return this;
  }
  charged(b = true): this {
    this.chargedFlag = b;
    return this;
  }
  stopping(graceUntil: number, byJobId: string | null = null): this {
    this.stoppingState = { graceUntil, byJobId };
    return this;
  }

  pending(): PendingJob {
    return { ...this.job };
  }

  running(): RunningJob {
    const r: RunningJob = {
      ...this.job,
      startedAt: this.started ?? 0,
      placement: this.places.map((p) => ({ nodeId: p.nodeId, gpuIndexes: [...p.gpuIndexes] })),
      stopping: this.stoppingState,
    };
    if (this.chargedFlag !== undefined) r.charged = this.chargedFlag;
    return r;
  }
}

export function makeJob(id?: string): JobBuilder {
  return new JobBuilder(id);
}
