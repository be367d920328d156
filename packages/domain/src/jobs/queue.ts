import type { PrismaClient } from "@tranche/db";
import { defaultPolicy, isDebugLane } from "@tranche/scheduler-core";
import { notFound } from "../errors";

export interface QueuePendingRow {
  id: number;
  name: string;
  position: number | null;
  budget: string;
  user: string;
  userId: string;
  gpus: number;
  state: "PENDING" | "HELD";
  lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  submittedAt: string;
  queuedAt: string;
  reasonCode: string | null;
  reasonSentence: string | null;
}

export interface QueueRunningRow {
  id: number;
  name: string;
  budget: string;
  user: string;
  userId: string;
  gpus: number;
  state: "RUNNING" | "STOPPING";
  lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  startedAt: string | null;
  protectedUntil: string | null;
  graceUntil: string | null;
  maxRuntime: number | null;
  nodes: string[];
}

export interface QueueRatio {
  treeNodeId: string;
  name: string;
  path: string;
  parentId: string | null;
  depth: number;
  effectiveAllocation: number;
  usageGpuSeconds: number;
  entitlementGpuSeconds: number;
  ratio: number | null;
  projectedRatio: number | null;
  heldGpus: number;
}

export interface QueueView {
  cluster: { id: string; name: string; gpuType: string; gpus: number; readyGpus: number };
  now: string;
  cycle: {
    id: string;
    at: string;
    durationMs: number;
    started: number;
    preempted: number;
    pendingCount: number;
    runningCount: number;
  } | null;
  pending: QueuePendingRow[];
  running: QueueRunningRow[];
  ratios: QueueRatio[];
  reservations: unknown;
  counts: { pending: number; held: number; running: number; pendingGpus: number; runningGpus: number };
  /** true when `pending` holds every pending job (no limit cut it) */
  complete: boolean;
}

const lane = (gpus: number, minRuntimeSec: number, maxRuntimeSec: number | null) =>
  isDebugLane({ gpus, maxRuntime: maxRuntimeSec }, defaultPolicy) ? "DEBUG" : minRuntimeSec > 0 ? "ALLOCATED" : "UNALLOCATED";

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);

/**
 * The live queue of one cluster: pending jobs in the scheduler's order (Job.queuePosition and the
 * reason the worker wrote at the latest cycle; jobs it has not seen yet follow by submit time),
 * running jobs with their protection, and the latest cycle's fair-share ratios. Reads only: the UI
 * never guesses an order or a reason (SPEC R10).
 */
interface PendingSqlRow {
  id: number;
  name: string;
  queuePosition: number | null;
  gpus: number;
  state: string;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  submittedAt: Date;
  queuedAt: Date;
  reasonCode: string | null;
  reasonSentence: string | null;
  userId: string;
  budget: string;
  userName: string;
}

export async function getQueue(prisma: PrismaClient, clusterName: string, opts: { limit?: number } = {}): Promise<QueueView> {
  const cluster = await prisma.cluster.findUnique({
    where: { name: clusterName },
    include: { nodes: { select: { gpuCount: true, state: true } } },
  });
  if (!cluster) throw notFound(`Unknown cluster '${clusterName}'`);
  const limit = Math.max(0, Math.min(opts.limit ?? 100_000, 100_000));
  const [pending, pendingCounts, running, cycle, tree] = await Promise.all([
    // Raw SQL: 10,000 pending rows in one round trip (Prisma's relation loading is several times slower).
    prisma.$queryRaw<PendingSqlRow[]>`
      SELECT j.id, j.name, j."queuePosition", j.gpus, j.state::text AS state, j."minRuntimeSec", j."maxRuntimeSec",
             j."submittedAt", j."queuedAt", j."reasonCode", j."reasonSentence", j."userId", b.path AS budget, u.name AS "userName"
      FROM job j JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"
      WHERE j."clusterId" = ${cluster.id} AND j.state IN ('PENDING', 'HELD')
      ORDER BY j."queuePosition" ASC NULLS LAST, j."submittedAt" ASC, j.id ASC
      LIMIT ${limit}`,
    prisma.job.groupBy({
      by: ["state"],
      where: { clusterId: cluster.id, state: { in: ["PENDING", "HELD"] } },
      _count: { _all: true },
      _sum: { gpus: true },
    }),
    prisma.job.findMany({
      where: { clusterId: cluster.id, state: { in: ["RUNNING", "STOPPING"] } },
      select: {
        id: true,
        name: true,
        gpus: true,
        state: true,
        minRuntimeSec: true,
        maxRuntimeSec: true,
        startedAt: true,
        protectedUntil: true,
        graceUntil: true,
        userId: true,
        budget: { select: { path: true } },
        user: { select: { name: true } },
        segments: { where: { endedAt: null }, select: { placements: { select: { node: { select: { name: true } } } } } },
      },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
    }),
    prisma.schedulingCycle.findFirst({ where: { clusterId: cluster.id }, orderBy: { at: "desc" } }),
    prisma.budgetTreeNode.findMany({ select: { id: true, path: true } }),
  ]);
  const paths = new Map(tree.map((t) => [t.id, t.path]));
  const rawRatios = Array.isArray(cycle?.ratios) ? (cycle!.ratios as Record<string, unknown>[]) : [];
  const ratios: QueueRatio[] = rawRatios
    .map((r) => {
      const id = String(r.treeNodeId ?? "");
      const path = paths.get(id) ?? String(r.name ?? id);
      return {
        treeNodeId: id,
        name: String(r.name ?? ""),
        path,
        parentId: (r.parentId as string | null) ?? null,
        depth: path.split("/").length - 1,
        effectiveAllocation: num(r.effectiveAllocation) ?? 0,
        usageGpuSeconds: num(r.usageGpuSeconds) ?? 0,
        entitlementGpuSeconds: num(r.entitlementGpuSeconds) ?? 0,
        ratio: num(r.ratio),
        projectedRatio: num(r.projectedRatioAfter) ?? num(r.projectedRatio),
        heldGpus: num(r.heldGpus) ?? 0,
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
  const pendingRows: QueuePendingRow[] = pending.map((j) => ({
    id: j.id,
    name: j.name,
    position: j.queuePosition,
    budget: j.budget,
    user: j.userName,
    userId: j.userId,
    gpus: j.gpus,
    state: j.state as "PENDING" | "HELD",
    lane: lane(j.gpus, j.minRuntimeSec, j.maxRuntimeSec),
    submittedAt: j.submittedAt.toISOString(),
    queuedAt: j.queuedAt.toISOString(),
    reasonCode: j.reasonCode,
    reasonSentence: j.reasonSentence,
  }));
  const runningRows: QueueRunningRow[] = running.map((j) => ({
    id: j.id,
    name: j.name,
    budget: j.budget.path,
    user: j.user.name,
    userId: j.userId,
    gpus: j.gpus,
    state: j.state as "RUNNING" | "STOPPING",
    lane: lane(j.gpus, j.minRuntimeSec, j.maxRuntimeSec),
    startedAt: j.startedAt?.toISOString() ?? null,
    protectedUntil: j.protectedUntil?.toISOString() ?? null,
    graceUntil: j.graceUntil?.toISOString() ?? null,
    maxRuntime: j.maxRuntimeSec,
    nodes: [...new Set(j.segments.flatMap((s) => s.placements.map((p) => p.node.name)))].sort(),
  }));
  return {
    cluster: {
      id: cluster.id,
      name: cluster.name,
      gpuType: cluster.gpuType,
      gpus: cluster.nodes.reduce((s, n) => s + n.gpuCount, 0),
      readyGpus: cluster.nodes.filter((n) => n.state === "READY").reduce((s, n) => s + n.gpuCount, 0),
    },
    now: new Date().toISOString(),
    cycle: cycle
      ? {
          id: cycle.id.toString(),
          at: cycle.at.toISOString(),
          durationMs: cycle.durationMs,
          started: cycle.started,
          preempted: cycle.preempted,
          pendingCount: cycle.pendingCount,
          runningCount: cycle.runningCount,
        }
      : null,
    pending: pendingRows,
    running: runningRows,
    ratios,
    reservations: cycle?.reservations ?? [],
    complete: pending.length < limit,
    counts: {
      pending: pendingCounts.find((c) => c.state === "PENDING")?._count._all ?? 0,
      held: pendingCounts.find((c) => c.state === "HELD")?._count._all ?? 0,
      running: runningRows.length,
      pendingGpus: pendingCounts.find((c) => c.state === "PENDING")?._sum.gpus ?? 0,
      runningGpus: runningRows.reduce((s, r) => s + r.gpus, 0),
    },
  };
}
