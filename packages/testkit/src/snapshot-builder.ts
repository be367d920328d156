import {
  PPM,
  effectiveAllocations,
  isHealthyCapacity,
  type BudgetTreeNode,
  type ClusterSnapshot,
  type Node,
  type NodeHealth,
  type NodeState,
  type PendingJob,
  type RunningJob,
} from "@tranche/scheduler-core";
import { seconds, type Duration } from "./duration";
import { JobBuilder } from "./job-builder";

export const ROOT_ID = "root";

interface BudgetSpec {
  allocationPpm: number;
  usage?: number;
  entitlement?: number;
}

/**
 * Snapshot builder: budgets by path ("lab/nlp/p1": tree node ids are the paths, names the last
 * segment), nodes, running and pending jobs.
 *
 *   makeCluster().nodes(4).budget("lab/a", 0.5).budget("lab/b", 0.5).usage("lab/a", 3600 * 8)
 *     .job(makeJob().budget("lab/a").gpus(8)).snapshot()
 *
 * Missing ancestors are created with 100%. Entitlement defaults to effective allocation x healthy
 * GPUs x `window` (default 1 day), usage to 0; both can be set per tree node.
 */
export class ClusterBuilder {
  private readonly nodeList: Node[] = [];
  private readonly budgets = new Map<string, BudgetSpec>();
  private readonly runningJobs: RunningJob[] = [];
  private readonly pendingJobs: PendingJob[] = [];
  private windowSeconds = 86_400;
  private maxMin: number | null = null;

  constructor(private readonly clusterId = "c1") {}

  /** `count` READY healthy nodes named n01, n02, ... (or prefix01...). */
  nodes(count: number, gpus = 8, prefix = "n"): this {
    const width = Math.max(2, String(this.nodeList.length + count).length);
    const start = this.nodeList.length;
    for (let i = 1; i <= count; i++) this.node(`${prefix}${String(start + i).padStart(width, "0")}`, { gpus });
    return this;
  }

  node(
    id: string,
    opts: {
      gpus?: number;
      state?: NodeState;
      health?: NodeHealth;
      lastHeartbeatAt?: number | null;
      /** A planned drain (R8): when, why and by whom. */
      drainAt?: number | null;
      drainReason?: string;
      drainPlannedBy?: string;
    } = {},
  ): this {
    this.nodeList.push({
      id,
      name: id,
      gpuCount: opts.gpus ?? 8,
      state: opts.state ?? "READY",
      health: opts.health ?? "HEALTHY",
      lastHeartbeatAt: opts.lastHeartbeatAt ?? null,
      ...(opts.drainAt != null
        ? { drainAt: opts.drainAt, drainReason: opts.drainReason ?? null, drainPlannedBy: opts.drainPlannedBy ?? null }
        : {}),
    });
    return this;
  }

  /** A tree node with its allocation as a fraction of its parent's (0..1), or `{ ppm }`. */
  budget(path: string, allocation: number | { ppm: number } = 1, opts: { usage?: number; entitlement?: number } = {}): this {
    const ppm = typeof allocation === "number" ? Math.round(allocation * PPM) : allocation.ppm;
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const anc = parts.slice(0, i).join("/");
      if (!this.budgets.has(anc)) this.budgets.set(anc, { allocationPpm: PPM });
    }
    const prev = this.budgets.get(path);
    this.budgets.set(path, { ...prev, allocationPpm: ppm, ...opts });
    return this;
  }

  /** Usage in the window, GPU-seconds (a number) or GPU-hours as "10h" of one GPU. */
  usage(path: string, gpuSeconds: number | Duration): this {
    const spec = this.ensure(path);
    spec.usage = typeof gpuSeconds === "number" ? gpuSeconds : seconds(gpuSeconds);
    return this;
  }

  entitlement(path: string, gpuSeconds: number): this {
    this.ensure(path).entitlement = gpuSeconds;
    return this;
  }

  /** Default entitlement window (seconds of full capacity at the effective allocation). */
  window(d: Duration): this {
    this.windowSeconds = seconds(d);
    return this;
  }

  maxMinRuntime(d: Duration): this {
    this.maxMin = seconds(d);
    return this;
  }

  private ensure(path: string): BudgetSpec {
    if (!this.budgets.has(path)) this.budget(path, 1);
    return this.budgets.get(path)!;
  }

  /** Adds jobs: a builder with `.on()`/`.startedAt()` is running, otherwise pending. */
  job(...jobs: (JobBuilder | PendingJob | RunningJob)[]): this {
    for (const j of jobs) {
      if (j instanceof JobBuilder) {
        this.ensure(j.pending().budgetId);
        if (j.isRunning) this.runningJobs.push(j.running());
        else this.pendingJobs.push(j.pending());
      } else if ("placement" in j) this.runningJobs.push(j);
      else this.pendingJobs.push(j);
    }
    return this;
  }

  snapshot(): ClusterSnapshot {
    const tree: Omit<BudgetTreeNode, "usageGpuSeconds" | "entitlementGpuSeconds">[] = [
      { id: ROOT_ID, name: ROOT_ID, parentId: null, allocationPpm: PPM },
    ];
    for (const [path, spec] of [...this.budgets].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const parts = path.split("/");
      tree.push({
        id: path,
        name: parts[parts.length - 1]!,
        parentId: parts.length === 1 ? ROOT_ID : parts.slice(0, -1).join("/"),
        allocationPpm: spec.allocationPpm,
      });
    }
    const eff = effectiveAllocations(tree);
    const healthy = this.nodeList.filter(isHealthyCapacity).reduce((s, n) => s + n.gpuCount, 0);
    return {
      cluster: { id: this.clusterId, name: this.clusterId, gpuType: "H100", maxMinRuntime: this.maxMin },
      nodes: this.nodeList.map((n) => ({ ...n })),
      tree: tree.map((t) => {
        const spec = this.budgets.get(t.id);
        return {
          ...t,
          usageGpuSeconds: spec?.usage ?? 0,
          entitlementGpuSeconds: spec?.entitlement ?? Math.round((eff.get(t.id) ?? 0) * healthy * this.windowSeconds),
        };
      }),
      running: this.runningJobs.map((j) => ({ ...j, placement: j.placement.map((p) => ({ ...p })) })),
      pending: this.pendingJobs.map((j) => ({ ...j })),
    };
  }
}

export function makeCluster(clusterId?: string): ClusterBuilder {
  return new ClusterBuilder(clusterId);
}
