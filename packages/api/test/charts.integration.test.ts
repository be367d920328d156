import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getChartData } from "@tranche/domain";
import { makeWorld, type World } from "./fixtures";

// The charts' entitlement must come from the allocation history in force at each moment x the healthy
// capacity (as the core computes it), never from today's allocations. Here a budget's share of a fresh
// 8-GPU cluster went from 25% to 100% six hours ago: every figure below differs when entitlement is
// taken from the current allocation (100% throughout).
const HOUR = 3600;
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0); // on an hour boundary: the 24 h chart is 24 whole hours
const now = NOW / 1000;
const GPUS = 8;

let w: World;
let pretraining: string;

/** `secondsAgo` before NOW. */
const at = (secondsAgo: number) => new Date((now - secondsAgo) * 1000);

/** A cluster of one ready 8-GPU node. */
async function clusterOfOneNode(name: string, createdAt?: Date) {
  const cluster = await w.db.prisma.cluster.create({ data: { name, gpuType: "H100", ...(createdAt ? { createdAt } : {}) } });
  await w.db.prisma.node.create({
    data: { clusterId: cluster.id, name: `${name}-1`, gpuCount: GPUS, state: "READY", health: "HEALTHY" },
  });
  return cluster;
}

/** A resumable running job of Ada's in lab/language/pretraining, submitted `submittedAgo` before NOW. */
async function runningJob(clusterId: string, name: string, gpus: number, submittedAgo: number) {
  const pre = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
  return w.db.prisma.job.create({
    data: {
      clusterId,
      budgetId: pre.id,
      userId: w.users.ada.id,
      name,
      gpus,
      minRuntimeSec: 3600,
      resumable: true,
      priority: 0,
      requeuePolicy: "REQUEUE",
      command: "sleep 1",
      env: {},
      state: "RUNNING",
      submittedAt: at(submittedAgo),
      queuedAt: at(submittedAgo),
    },
  });
}

beforeAll(async () => {
  w = await makeWorld("api_charts");
  const p = w.db.prisma;
  const cluster = await clusterOfOneNode("chartlab");
  const language = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language" } });
  const pre = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
  pretraining = pre.path;
  // Today: language 100% of the cluster, pretraining 100% of language.
  await p.allocation.createMany({
    data: [
      { treeNodeId: language.id, clusterId: cluster.id, ppm: 1_000_000 },
      { treeNodeId: pre.id, clusterId: cluster.id, ppm: 1_000_000 },
    ],
  });
  // History: 25% for language ten days ago, raised to 100% six hours ago.
  await p.allocationChange.createMany({
    data: [
      { treeNodeId: language.id, clusterId: cluster.id, fromPpm: 0, toPpm: 250_000, at: at(10 * 86_400) },
      { treeNodeId: pre.id, clusterId: cluster.id, fromPpm: 0, toPpm: 1_000_000, at: at(10 * 86_400) },
      { treeNodeId: language.id, clusterId: cluster.id, fromPpm: 250_000, toPpm: 1_000_000, at: at(6 * HOUR) },
    ],
  });
  // Eight healthy GPUs every hour for the last eight days.
  await p.capacityLedger.createMany({
    data: Array.from({ length: 8 * 24 }, (_, i) => ({
      clusterId: cluster.id,
      hourStart: at((i + 1) * HOUR),
      healthyGpuSeconds: BigInt(GPUS * HOUR),
      totalGpuSeconds: BigInt(GPUS * HOUR),
    })),
  });
  // 40 GPU-hours charged to pretraining inside the window (4 GPUs for the 10 hours before the last 30).
  await p.usageLedger.createMany({
    data: Array.from({ length: 10 }, (_, i) => ({
      budgetId: pre.id,
      clusterId: cluster.id,
      hourStart: at((30 + i) * HOUR),
      gpuSeconds: BigInt(4 * HOUR),
    })),
  });
  // Demand: an 8-GPU allocated job pending for two days (more than any hour's entitlement).
  await p.job.create({
    data: {
      clusterId: cluster.id,
      budgetId: pre.id,
      userId: w.users.ada.id,
      name: "waiting",
      gpus: GPUS,
      minRuntimeSec: 3600,
      resumable: true,
      priority: 0,
      requeuePolicy: "REQUEUE",
      command: "sleep 1",
      env: {},
      state: "PENDING",
      submittedAt: at(2 * 86_400),
      queuedAt: at(2 * 86_400),
    },
  });
});
afterAll(async () => {
  await w?.db.drop();
});

describe("charts: entitlement from the allocation history", () => {
  it("usage vs entitlement integrates the 7-day window over the allocation history and healthy capacity", async () => {
    const d = await getChartData(w.db.prisma, "chartlab", 24, NOW);
    const row = d.usage.find((u) => u.budget === pretraining);
    expect(row).toBeDefined();
    // 8 GPUs x (162 h at 25% + 6 h at 100%) = 372 GPU-h; today's allocation would say 8 x 168 = 1,344.
    expect(row!.entitlementGpuHours).toBeCloseTo(8 * (162 * 0.25 + 6), 3);
    expect(row!.usageGpuHours).toBeCloseTo(40, 3);
    expect(row!.ratio).toBeCloseTo(40 / 372, 6);
    // Budgets without an allocation on this cluster are entitled to nothing.
    expect(d.usage.find((u) => u.budget === "lab/vision/video")?.entitlementGpuHours ?? 0).toBe(0);
  });

  it("delivery owes each hour the allocation in force then, not today's", async () => {
    const d = await getChartData(w.db.prisma, "chartlab", 24, NOW);
    const row = d.delivery.find((b) => b.budget === pretraining);
    expect(row).toBeDefined();
    // Demand (8 GPUs) exceeds entitlement every hour: owed = 18 h x 2 GPUs + 6 h x 8 GPUs = 84 GPU-h
    // (today's allocation would owe 24 x 8 = 192). Nothing ran, so nothing was delivered.
    expect(row!.owedGpuHours).toBeCloseTo(18 * 2 + 6 * 8, 3);
    expect(row!.deliveredGpuHours).toBe(0);
    expect(row!.delivery).toBe(0);
  });
});

describe("charts: occupancy with a partly recorded hour", () => {
  it("counts the part of an hour the capacity ledger has not recorded at today's capacity, so occupancy stays within 100%", async () => {
    const p = w.db.prisma;
    const cluster = await clusterOfOneNode("freshlab");
    const pre = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    // The worker started 10 minutes before the end of the last hour: only those 600 s are recorded.
    await p.capacityLedger.create({
      data: {
        clusterId: cluster.id,
        hourStart: at(HOUR),
        healthyGpuSeconds: BigInt(GPUS * 600),
        totalGpuSeconds: BigInt(GPUS * 600),
      },
    });
    // ...but an 8-GPU job ran through the whole hour.
    const job = await runningJob(cluster.id, "all-hour", GPUS, 2 * HOUR);
    await p.runSegment.create({
      data: { jobId: job.id, clusterId: cluster.id, budgetId: pre.id, gpus: GPUS, startedAt: at(2 * HOUR), charged: true },
    });
    const d = await getChartData(p, "freshlab", 24, NOW);
    const last = d.occupancy[d.occupancy.length - 1]!;
    // 8 GPUs x 3,600 s over 600 s recorded + 3,000 s at today's 8 healthy GPUs: exactly full, not 600%.
    expect(last.allocated).toBeCloseTo(1, 6);
    for (const h of d.occupancy) if (h.occupancy !== null) expect(h.occupancy).toBeLessThanOrEqual(1 + 1e-9);
  });
});

describe("charts: the window's ends", () => {
  it("ends now, never at the end of the current clock hour, and starts on the hour N hours before that hour's end", async () => {
    // Asked 25 minutes past an hour: the window is the current hour so far and the 23 whole hours before it.
    const asked = NOW + 1500 * 1000;
    const d = await getChartData(w.db.prisma, "chartlab", 24, asked);
    expect(d.to).toBe(new Date(asked).toISOString());
    expect(d.from).toBe(new Date(NOW + 3600 * 1000 - 24 * 3600 * 1000).toISOString());
  });
});

describe("charts: a cluster younger than the window", () => {
  it("starts the window when the cluster started, not 24 h before: a full young cluster reads full", async () => {
    const p = w.db.prisma;
    // Born 10 minutes past NOW's hour; asked 40 minutes past it: 30 minutes old, 8 GPUs busy throughout.
    const born = new Date((now + 600) * 1000);
    const asked = (now + 2400) * 1000;
    const cluster = await clusterOfOneNode("younglab", born);
    await p.capacityLedger.create({
      data: {
        clusterId: cluster.id,
        hourStart: new Date(NOW),
        healthyGpuSeconds: BigInt(GPUS * 1800),
        totalGpuSeconds: BigInt(GPUS * 1800),
      },
    });
    const pre = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    const job = await p.job.create({
      data: {
        clusterId: cluster.id,
        budgetId: pre.id,
        userId: w.users.ada.id,
        name: "busy",
        gpus: GPUS,
        minRuntimeSec: 0,
        command: "sleep 1",
        state: "RUNNING",
        submittedAt: born,
        queuedAt: born,
        startedAt: born,
      },
    });
    await p.runSegment.create({
      data: { jobId: job.id, clusterId: cluster.id, budgetId: pre.id, gpus: GPUS, startedAt: born, charged: false },
    });
    const d = await getChartData(p, "younglab", 24, asked);
    expect(d.since).toBe(born.toISOString());
    expect(d.from).toBe(born.toISOString());
    expect(d.occupancy).toHaveLength(1);
    expect(d.occupancyWindow.occupancy).toBeCloseTo(1, 6);
    // The older cluster above keeps its whole window.
    expect((await getChartData(p, "chartlab", 24, NOW)).since).toBeNull();
  });
});

describe("charts: preemptions in the window", () => {
  it("counts the runs preempted in the window by reason, with their GPU-hours since their starts; a move apart", async () => {
    const p = w.db.prisma;
    const cluster = await clusterOfOneNode("preemptlab");
    const pre = await p.budgetTreeNode.findUniqueOrThrow({ where: { path: "lab/language/pretraining" } });
    const job = (name: string) => runningJob(cluster.id, name, 4, 10 * HOUR);
    const [a, b, c, old] = await Promise.all([job("a"), job("b"), job("c"), job("old")]);
    const seg = (
      jobId: number,
      gpus: number,
      from: number,
      to: number | null,
      endReason?: "PREEMPT" | "FINISH",
      endDetail?: string,
    ) =>
      p.runSegment.create({
        data: {
          jobId,
          clusterId: cluster.id,
          budgetId: pre.id,
          gpus,
          startedAt: at(from),
          endedAt: to === null ? null : at(to),
          charged: true,
          endReason: endReason ?? null,
          endDetail: endDetail ?? null,
        },
      });
    // a: preempted for fair share after 3 h on 4 GPUs (12 GPU-h), restarted an hour later.
    await seg(a.id, 4, 6 * HOUR, 3 * HOUR, "PREEMPT", "FAIR_SHARE");
    await seg(a.id, 4, 2 * HOUR, null);
    // b: preempted for a debug job after 1 h on 2 GPUs (2 GPU-h); c: moved (R12), not a preemption.
    await seg(b.id, 2, 4 * HOUR, 3 * HOUR, "PREEMPT", "DEBUG_LANE");
    await seg(c.id, 1, 5 * HOUR, 4 * HOUR, "PREEMPT", "CONSOLIDATION");
    // old: preempted 30 h ago, before the 24 h window; a finished run is no preemption either.
    await seg(old.id, 4, 31 * HOUR, 30 * HOUR, "PREEMPT", "FAIR_SHARE");
    await seg(old.id, 4, 29 * HOUR, 28 * HOUR, "FINISH");
    const d = await getChartData(p, "preemptlab", 24, NOW);
    expect(d.preemptionsWindow.count).toBe(2);
    expect(d.preemptionsWindow.moves).toBe(1);
    expect(d.preemptionsWindow.gpuHours).toBeCloseTo(14, 6);
    expect(d.preemptionsWindow.byReason).toEqual([
      { reason: "DEBUG_LANE", count: 1, gpuHours: 2 },
      { reason: "FAIR_SHARE", count: 1, gpuHours: 12 },
    ]);
  });
});
