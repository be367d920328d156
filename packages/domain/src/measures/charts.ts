import { IN_SERVICE } from "../nodes/in-service";
import type { PrismaClient } from "@tranche/db";
import {
  computeDelivery,
  computeEntitlements,
  computeOccupancy,
  computePreemptions,
  computeQueueWaits,
  computeRatios,
  defaultPolicy,
  classifyJob,
  isPreemptReasonCode,
  type BudgetInterval,
  type ClusterInterval,
  type PreemptReasonCode,
  type PreemptionRecord,
  type RunSegment as CoreSegment,
} from "@tranche/scheduler-core";
import { notFound } from "../errors";
import { loadWindowTree } from "../runtime/load-snapshot";

export interface ChartData {
  cluster: string;
  from: string;
  to: string;
  hours: number;
  /**
   * When the cluster is younger than the window: when it started (its first recorded moment), and
   * the window starts there instead of counting hours before the cluster existed. Else null.
   */
  since: string | null;
  occupancy: { hour: string; allocated: number | null; unallocated: number | null; occupancy: number | null }[];
  occupancyWindow: ReturnType<typeof computeOccupancy>;
  queueWait: {
    hour: string;
    allP50: number | null;
    allP90: number | null;
    debugP50: number | null;
    debugP90: number | null;
    largeP50: number | null;
    largeP90: number | null;
  }[];
  queueWaitWindow: ReturnType<typeof computeQueueWaits>;
  /**
   * The runs preempted in the window (ended by a PREEMPT op), counted when they ended: how many, the
   * GPU-hours they had run since their starts (to their end: the grace is included, since a run does
   * not keep the moment it was told to stop), and both by the preemption's reason. Moves (R12) apart.
   */
  preemptionsWindow: {
    count: number;
    moves: number;
    gpuHours: number;
    byReason: { reason: PreemptReasonCode; count: number; gpuHours: number }[];
  };
  delivery: { budget: string; delivery: number | null; owedGpuHours: number; deliveredGpuHours: number }[];
  deliveryWindow: { delivery: number | null; budgetsOwed: number; budgetsAtLeast95: number; minDelivery: number | null };
  usage: { budget: string; usageGpuHours: number; entitlementGpuHours: number; ratio: number | null }[];
  usageAt: string | null;
}

const HOUR = 3600;
/** A database time in epoch seconds, as the core's measures take them. */
const sec = (d: Date) => Math.floor(d.getTime() / 1000);
const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/**
 * When the cluster started, seconds: the earliest of its creation, its first run and the first moment
 * its capacity ledger recorded (the ledger's first hour holds only the seconds since the worker began).
 */
async function clusterStart(
  prisma: PrismaClient,
  clusterId: string,
  createdAt: Date,
  nodes: { gpuCount: number }[],
  now: number,
): Promise<number> {
  const [firstSegment, firstCapacity] = await Promise.all([
    prisma.runSegment.findFirst({ where: { clusterId }, orderBy: { startedAt: "asc" }, select: { startedAt: true } }),
    prisma.capacityLedger.findFirst({ where: { clusterId }, orderBy: { hourStart: "asc" } }),
  ]);
  let born = sec(createdAt);
  if (firstSegment) born = Math.min(born, sec(firstSegment.startedAt));
  const gpus = nodes.reduce((s, n) => s + n.gpuCount, 0);
  if (firstCapacity && gpus > 0) {
    const h = sec(firstCapacity.hourStart);
    const recorded = Number(firstCapacity.totalGpuSeconds) / gpus;
    born = Math.min(born, Math.max(h, Math.min(h + HOUR, now) - Math.ceil(recorded)));
  }
  return Math.min(born, now);
}

/**
 * Chart series for one cluster over the last `hours` hours. The rows (run segments, capacity ledger,
 * pending jobs) are cut into hourly ClusterInterval / BudgetInterval / RunSegment inputs and every
 * number is computed by the core's SPEC §4 measures (computeOccupancy, computeQueueWaits,
 * computeDelivery) — the same functions the simulator reports with. Entitlement is never taken from
 * today's allocations: each hour's is the allocation history in force then x that hour's healthy
 * capacity (the core's computeEntitlements over the hour), and usage vs entitlement is the budget tree
 * with its 7-day window aggregates loaded exactly as the worker loads it for a cycle (usage ledger,
 * allocation history x capacity ledger), with the core's computeRatios.
 */
export async function getChartData(
  prisma: PrismaClient,
  clusterName: string,
  hours = 24,
  nowMs = Date.now(),
): Promise<ChartData> {
  const cluster = await prisma.cluster.findUnique({
    where: { name: clusterName },
    include: { nodes: { where: IN_SERVICE, select: { gpuCount: true, state: true, health: true } } },
  });
  if (!cluster) throw notFound(`Unknown cluster '${clusterName}'`);
  const now = Math.floor(nowMs / 1000);
  const end = Math.ceil(now / HOUR) * HOUR;
  const bornAt = await clusterStart(prisma, cluster.id, cluster.createdAt, cluster.nodes, now);
  const windowStart = end - hours * HOUR;
  // A cluster younger than the window: its hours start when it did (the first one partial).
  const start = Math.max(windowStart, Math.floor(bornAt / HOUR) * HOUR);
  const firstMoment = Math.max(windowStart, bornAt);
  const startDate = new Date(start * 1000);
  const [segments, capacity, pending, pathRows, window] = await Promise.all([
    prisma.runSegment.findMany({
      where: {
        clusterId: cluster.id,
        startedAt: { lt: new Date(end * 1000) },
        OR: [{ endedAt: null }, { endedAt: { gt: new Date((start - 7 * 86_400) * 1000) } }],
      },
      select: {
        id: true,
        jobId: true,
        budgetId: true,
        gpus: true,
        startedAt: true,
        endedAt: true,
        charged: true,
        endReason: true,
        endDetail: true,
        job: { select: { submittedAt: true, maxRuntimeSec: true, minRuntimeSec: true } },
      },
      orderBy: [{ jobId: "asc" }, { startedAt: "asc" }],
    }),
    prisma.capacityLedger.findMany({ where: { clusterId: cluster.id, hourStart: { gte: startDate } } }),
    prisma.job.findMany({
      where: { clusterId: cluster.id, state: "PENDING", minRuntimeSec: { gt: 0 } },
      select: { budgetId: true, gpus: true, queuedAt: true },
    }),
    prisma.budgetTreeNode.findMany({ select: { id: true, path: true } }),
    loadWindowTree(prisma, cluster.id, now),
  ]);
  const totalGpus = cluster.nodes.reduce((s, n) => s + n.gpuCount, 0);
  const healthyNow = cluster.nodes
    .filter((n) => n.health === "HEALTHY" && n.state !== "DOWN" && n.state !== "REPAIR")
    .reduce((s, n) => s + n.gpuCount, 0);
  const capByHour = new Map(capacity.map((c) => [sec(c.hourStart), c]));

  const coreSegs: CoreSegment[] = [];
  let prevJob = -1;
  let prevEnd: number | null = null;
  for (const s of segments) {
    const queuedAt = s.jobId === prevJob && prevEnd !== null ? prevEnd : sec(s.job.submittedAt);
    coreSegs.push({
      jobId: String(s.jobId),
      clusterId: cluster.id,
      budgetId: s.budgetId,
      gpus: s.gpus,
      queuedAt,
      startedAt: sec(s.startedAt),
      endedAt: s.endedAt ? sec(s.endedAt) : null,
      // The core's lane for the run as it was charged at START.
      debug:
        classifyJob(
          { gpus: s.gpus, minRuntime: s.job.minRuntimeSec, maxRuntime: s.job.maxRuntimeSec, gracePeriod: null },
          s.charged,
          defaultPolicy,
        ).lane === "DEBUG",
      charged: s.charged,
    });
    prevJob = s.jobId;
    prevEnd = s.endedAt ? sec(s.endedAt) : null;
  }
  const minRuntimeOf = new Map(segments.map((s) => [String(s.jobId), s.job.minRuntimeSec]));
  const preemptions = preemptionRecords(segments, cluster.id, firstMoment);

  const tree = window.tree;
  const parents = new Set(tree.map((n) => n.parentId));
  const leaves = tree.filter((n) => !parents.has(n.id));
  // An hour's entitlement: the allocations in force during that hour (history) x its healthy capacity.
  const hourEntitlements = (h: number, h1: number, healthy: number): Record<string, number> =>
    computeEntitlements(tree, window.allocationHistory, [{ at: h, healthyGpus: healthy / (h1 - h) }], h1, {
      lookbackWindow: h1 - h,
      projectionHorizon: 0,
    });
  const clusterIntervals: ClusterInterval[] = [];
  const budgetIntervals: BudgetInterval[] = [];
  const occupancy: ChartData["occupancy"] = [];
  const queueWait: ChartData["queueWait"] = [];
  for (let hourStart = start; hourStart < end; hourStart += HOUR) {
    const h = Math.max(hourStart, firstMoment);
    const h1 = Math.min(hourStart + HOUR, now);
    const span = Math.max(0, h1 - h);
    // The capacity ledger covers only the part of the hour since the worker began recording it (a
    // fresh start, a restart): the rest of the hour counts at today's capacity, so an hour's occupancy
    // never divides a full hour of running jobs by a few seconds of recorded capacity.
    const cap = capByHour.get(hourStart);
    const recordedTotal = cap ? Number(cap.totalGpuSeconds) : 0;
    const covered = totalGpus > 0 ? Math.min(span, recordedTotal / totalGpus) : span;
    const unrecorded = Math.max(0, span - covered);
    const healthy = (cap ? Number(cap.healthyGpuSeconds) : 0) + healthyNow * unrecorded;
    const total = recordedTotal + totalGpus * unrecorded;
    let alloc = 0;
    let unalloc = 0;
    const ran = new Map<string, number>();
    const demand = new Map<string, number>();
    for (const s of coreSegs) {
      const o = overlap(h, h1, s.startedAt, s.endedAt ?? now) * s.gpus;
      if (s.charged) {
        alloc += o;
        ran.set(s.budgetId, (ran.get(s.budgetId) ?? 0) + o);
      } else unalloc += o;
      if ((minRuntimeOf.get(s.jobId) ?? 0) > 0) {
        const waiting = overlap(h, h1, s.queuedAt, s.startedAt) * s.gpus;
        demand.set(s.budgetId, (demand.get(s.budgetId) ?? 0) + waiting + (s.charged ? o : 0));
      }
    }
    for (const p of pending) {
      const o = overlap(h, h1, sec(p.queuedAt), now) * p.gpus;
      demand.set(p.budgetId, (demand.get(p.budgetId) ?? 0) + o);
    }
    const ci: ClusterInterval = {
      clusterId: cluster.id,
      start: h,
      end: h1,
      totalGpuSeconds: total,
      healthyGpuSeconds: healthy,
      allocatedGpuSeconds: alloc,
      unallocatedGpuSeconds: unalloc,
      fragmentationGpuSeconds: 0,
    };
    clusterIntervals.push(ci);
    const occ = computeOccupancy([ci]);
    occupancy.push({
      hour: new Date(hourStart * 1000).toISOString(),
      allocated: occ.allocated,
      unallocated: occ.unallocated,
      occupancy: occ.occupancy,
    });
    const entitled = span > 0 ? hourEntitlements(h, h1, healthy) : {};
    for (const b of leaves) {
      budgetIntervals.push({
        clusterId: cluster.id,
        budgetId: b.id,
        start: h,
        end: h1,
        entitlementGpuSeconds: entitled[b.id] ?? 0,
        demandGpuSeconds: demand.get(b.id) ?? 0,
        ranGpuSeconds: ran.get(b.id) ?? 0,
      });
    }
    const qw = computeQueueWaits(
      coreSegs.filter((s) => s.startedAt >= hourStart && s.startedAt < hourStart + HOUR),
      defaultPolicy.largeJobGpus,
    );
    queueWait.push({
      hour: new Date(hourStart * 1000).toISOString(),
      allP50: qw.all.p50,
      allP90: qw.all.p90,
      debugP50: qw.debug.p50,
      debugP90: qw.debug.p90,
      largeP50: qw.large.p50,
      largeP90: qw.large.p90,
    });
  }
  const delivery = computeDelivery(budgetIntervals);
  const paths = new Map(pathRows.map((n) => [n.id, n.path]));
  const ratios = computeRatios({ tree, running: [] }, window.policy);
  const leafIds = new Set(leaves.map((l) => l.id));
  return {
    cluster: cluster.name,
    from: new Date(firstMoment * 1000).toISOString(),
    // The hours are clock hours, the last one cut at now: its end is the data's end, not the hour's.
    to: new Date(now * 1000).toISOString(),
    hours,
    since: firstMoment > windowStart ? new Date(firstMoment * 1000).toISOString() : null,
    occupancy,
    occupancyWindow: computeOccupancy(clusterIntervals),
    queueWait,
    queueWaitWindow: computeQueueWaits(
      coreSegs.filter((s) => s.startedAt >= start),
      defaultPolicy.largeJobGpus,
    ),
    preemptionsWindow: preemptionsSummary(preemptions),
    delivery: delivery.perBudget
      .map((b) => ({
        budget: paths.get(b.budgetId) ?? b.budgetId,
        delivery: b.delivery,
        owedGpuHours: b.owedGpuSeconds / HOUR,
        deliveredGpuHours: b.deliveredGpuSeconds / HOUR,
      }))
      .sort((a, b) => a.budget.localeCompare(b.budget)),
    deliveryWindow: {
      delivery: delivery.delivery,
      budgetsOwed: delivery.budgetsOwed,
      budgetsAtLeast95: delivery.budgetsAtLeast95,
      minDelivery: delivery.minDelivery,
    },
    usage: ratios
      .filter((r) => leafIds.has(r.treeNodeId))
      .map((r) => ({
        budget: paths.get(r.treeNodeId) ?? r.name,
        usageGpuHours: r.usageGpuSeconds / HOUR,
        // Earned so far (grows with a young cluster's age); the ratio keeps SPEC §2's one-hour floor.
        entitlementGpuHours: (window.accruedEntitlement[r.treeNodeId] ?? r.entitlementGpuSeconds) / HOUR,
        ratio: Number.isFinite(r.ratio) ? r.ratio : null,
      }))
      .sort((a, b) => a.budget.localeCompare(b.budget)),
    usageAt: new Date(now * 1000).toISOString(),
  };
}

/**
 * One PreemptionRecord per run preempted in the window, from the run segments (ordered by job, then
 * start): a run that ended by a PREEMPT op keeps the op's reason code as its end detail; `at` is the
 * run's end, and the job's next run, if any, is its restart.
 */
function preemptionRecords(
  segments: readonly {
    jobId: number;
    gpus: number;
    startedAt: Date;
    endedAt: Date | null;
    endReason: string | null;
    endDetail: string | null;
  }[],
  clusterId: string,
  from: number,
): PreemptionRecord[] {
  const out: PreemptionRecord[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (s.endReason !== "PREEMPT" || s.endedAt === null || sec(s.endedAt) < from) continue;
    const next = segments[i + 1];
    const reason = isPreemptReasonCode(s.endDetail) ? s.endDetail : null;
    out.push({
      jobId: String(s.jobId),
      clusterId,
      at: sec(s.endedAt),
      gpus: s.gpus,
      startedAt: sec(s.startedAt),
      restartedAt: next && next.jobId === s.jobId ? sec(next.startedAt) : null,
      move: reason === "CONSOLIDATION",
      reason,
    });
  }
  return out;
}

/** The window's preemptions for the charts: the core's computePreemptions, its reasons largest first. */
function preemptionsSummary(records: readonly PreemptionRecord[]): ChartData["preemptionsWindow"] {
  const p = computePreemptions(records);
  const byReason = Object.entries(p.byReason)
    .map(([reason, b]) => ({ reason: reason as PreemptReasonCode, count: b.count, gpuHours: b.gpuHours }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return { count: p.count, moves: p.moves, gpuHours: p.gpuHours, byReason };
}
