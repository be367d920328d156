import { IN_SERVICE } from "../nodes/in-service";
import { Gauge, Registry } from "prom-client";
import type { PrismaClient } from "@tranche/db";
import { PREEMPT_REASON_CODES } from "@tranche/scheduler-core";
import { getChartData } from "../measures/charts";

/**
 * GET /metrics: Prometheus text, read from the database at scrape time (so any web replica serves the
 * same numbers and nothing is lost when the worker restarts). Per cluster: GPUs by occupancy kind,
 * jobs by state, the latest cycle's phase durations, cycles and preemptions so far by reason, agents connected;
 * per budget: fair-share ratio from the latest cycle, delivery over the last 24 h (SPEC §4) and running
 * jobs flagged as likely squatting.
 */
/** The preemption reasons of the live scheduler (PRIORITY is the simulator's baseline's own). */
const LIVE_PREEMPT_REASONS = PREEMPT_REASON_CODES.filter((r) => r !== "PRIORITY");

export async function renderMetrics(prisma: PrismaClient, now = new Date()): Promise<{ contentType: string; text: string }> {
  const registry = new Registry();
  const g = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers: [registry] });
  const gpus = g(
    "tranche_gpus",
    "GPUs by cluster and kind (they add up to the cluster): allocated, unallocated (occupied), idle (free on ready nodes), held_back (free on cordoned or draining nodes), unavailable (unhealthy, down or in repair)",
    ["cluster", "kind"],
  );
  const occupancy = g("tranche_occupancy_ratio", "Occupied GPUs / healthy GPUs, split allocated / unallocated", [
    "cluster",
    "kind",
  ]);
  const jobs = g("tranche_jobs", "Jobs by cluster and state (active states)", ["cluster", "state"]);
  const cycleSeconds = g(
    "tranche_cycle_duration_seconds",
    "Latest scheduling cycle duration by phase (load, decide, apply, total)",
    ["cluster", "phase"],
  );
  const cycles = g("tranche_cycles_total", "Scheduling cycles recorded", ["cluster"]);
  const preemptions = g(
    "tranche_preemptions_total",
    "Preemptions recorded (job events) by reason code: UNALLOCATED_FOR_ALLOCATED (R3), FAIR_SHARE (R4), DEBUG_LANE (R5), DRAIN (R8), CONSOLIDATION (R12, moves)",
    ["cluster", "reason"],
  );
  const agents = g("tranche_agents_connected", "Nodes whose agent sent a heartbeat in the last 30 s", ["cluster"]);
  const nodes = g("tranche_nodes", "Nodes by state", ["cluster", "state"]);
  const ratio = g(
    "tranche_budget_fair_share_ratio",
    "Fair-share ratio (usage / entitlement over the window) from the latest cycle; absent when infinite",
    ["cluster", "budget"],
  );
  const delivery = g("tranche_budget_delivery_ratio", "Delivered / owed GPU-hours over the last 24 h (SPEC §4)", [
    "cluster",
    "budget",
  ]);
  const deliveryAll = g("tranche_delivery_ratio", "Overall delivery over the last 24 h (SPEC §4)", ["cluster"]);
  const squatting = g(
    "tranche_squatting_jobs",
    "Running jobs flagged as likely squatting (GPUs under 5% busy for 30 min), per budget with running jobs",
    ["cluster", "budget"],
  );
  const leader = g("tranche_worker_leader", "1 when a worker holds the scheduler lease", ["holder"]);

  const clusters = await prisma.cluster.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
  const since = new Date(now.getTime() - 30_000);
  for (const c of clusters) {
    const [occ, nodeRows, jobRows, lastCycle, cycleCount, preemptRows, connected, squatRows, readyBusy] = await Promise.all([
      prisma.$queryRaw<{ charged: boolean; gpus: bigint }[]>`
        SELECT s.charged, SUM(s.gpus)::bigint AS gpus FROM run_segment s
        WHERE s."clusterId" = ${c.id} AND s."endedAt" IS NULL AND s."startedAt" <= ${now} GROUP BY s.charged`,
      prisma.node.groupBy({
        by: ["state", "health"],
        where: { clusterId: c.id, ...IN_SERVICE },
        _sum: { gpuCount: true },
        _count: true,
      }),
      prisma.job.groupBy({
        by: ["state"],
        where: { clusterId: c.id, state: { in: ["PENDING", "HELD", "RUNNING", "STOPPING"] } },
        _count: true,
      }),
      prisma.schedulingCycle.findFirst({ where: { clusterId: c.id }, orderBy: { at: "desc" } }),
      prisma.schedulingCycle.count({ where: { clusterId: c.id } }),
      prisma.$queryRaw<
        { reason: string | null; n: bigint }[]
      >`SELECT e."reasonCode" AS reason, COUNT(*)::bigint AS n FROM job_event e JOIN job j ON j.id = e."jobId"
        WHERE j."clusterId" = ${c.id} AND e.kind = 'PREEMPTED' GROUP BY e."reasonCode"`,
      prisma.node.count({ where: { clusterId: c.id, ...IN_SERVICE, lastHeartbeatAt: { gte: since } } }),
      prisma.$queryRaw<{ budget: string; n: bigint }[]>`
        SELECT b.path AS budget, COUNT(j."squattingSince")::bigint AS n FROM job j JOIN budget_tree_node b ON b.id = j."budgetId"
        WHERE j."clusterId" = ${c.id} AND j.state = 'RUNNING' GROUP BY b.path`,
      // GPUs in use on the nodes where new work may start: the rest of those nodes' GPUs are idle.
      prisma.$queryRaw<{ gpus: bigint | null }[]>`
        SELECT SUM(cardinality(p."gpuIndexes"))::bigint AS gpus FROM run_segment s
        JOIN segment_placement p ON p."segmentId" = s.id JOIN node n ON n.id = p."nodeId"
        WHERE s."clusterId" = ${c.id} AND s."endedAt" IS NULL AND s."startedAt" <= ${now}
          AND n.state = 'READY' AND n.health = 'HEALTHY'`,
    ]);
    for (const r of squatRows) squatting.set({ cluster: c.name, budget: r.budget }, Number(r.n));
    const allocated = Number(occ.find((o) => o.charged)?.gpus ?? 0);
    const unallocated = Number(occ.find((o) => !o.charged)?.gpus ?? 0);
    let healthy = 0;
    let schedulable = 0;
    let total = 0;
    const byState = new Map<string, number>();
    for (const n of nodeRows) {
      const count = n._sum.gpuCount ?? 0;
      total += count;
      if (n.health === "HEALTHY" && n.state !== "DOWN" && n.state !== "REPAIR") healthy += count;
      if (n.health === "HEALTHY" && n.state === "READY") schedulable += count;
      byState.set(n.state, (byState.get(n.state) ?? 0) + n._count);
    }
    gpus.set({ cluster: c.name, kind: "allocated" }, allocated);
    gpus.set({ cluster: c.name, kind: "unallocated" }, unallocated);
    const idle = Math.max(0, schedulable - Number(readyBusy[0]?.gpus ?? 0));
    gpus.set({ cluster: c.name, kind: "idle" }, idle);
    gpus.set({ cluster: c.name, kind: "held_back" }, Math.max(0, healthy - allocated - unallocated - idle));
    gpus.set({ cluster: c.name, kind: "unavailable" }, total - healthy);
    occupancy.set({ cluster: c.name, kind: "allocated" }, healthy ? allocated / healthy : 0);
    occupancy.set({ cluster: c.name, kind: "unallocated" }, healthy ? unallocated / healthy : 0);
    for (const s of ["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"])
      nodes.set({ cluster: c.name, state: s }, byState.get(s) ?? 0);
    for (const s of ["PENDING", "HELD", "RUNNING", "STOPPING"])
      jobs.set({ cluster: c.name, state: s }, jobRows.find((r) => r.state === s)?._count ?? 0);
    if (lastCycle) {
      cycleSeconds.set({ cluster: c.name, phase: "load" }, lastCycle.loadMs / 1000);
      cycleSeconds.set({ cluster: c.name, phase: "decide" }, lastCycle.decideMs / 1000);
      cycleSeconds.set({ cluster: c.name, phase: "apply" }, lastCycle.applyMs / 1000);
      cycleSeconds.set({ cluster: c.name, phase: "total" }, lastCycle.durationMs / 1000);
      const paths = new Map(
        (await prisma.budgetTreeNode.findMany({ select: { id: true, path: true } })).map((b) => [b.id, b.path]),
      );
      for (const r of (lastCycle.ratios as { treeNodeId: string; ratio: number | null }[] | null) ?? []) {
        if (typeof r.ratio === "number" && Number.isFinite(r.ratio))
          ratio.set({ cluster: c.name, budget: paths.get(r.treeNodeId) ?? r.treeNodeId }, r.ratio);
      }
    }
    cycles.set({ cluster: c.name }, cycleCount);
    // Every live reason is written, 0 until its first preemption, so rate() works from the start.
    for (const reason of LIVE_PREEMPT_REASONS) preemptions.set({ cluster: c.name, reason }, 0);
    for (const r of preemptRows) preemptions.set({ cluster: c.name, reason: r.reason ?? "UNKNOWN" }, Number(r.n));
    agents.set({ cluster: c.name }, connected);
    try {
      const chart = await getChartData(prisma, c.name, 24, now.getTime());
      for (const d of chart.delivery) if (d.delivery !== null) delivery.set({ cluster: c.name, budget: d.budget }, d.delivery);
      if (chart.deliveryWindow.delivery !== null) deliveryAll.set({ cluster: c.name }, chart.deliveryWindow.delivery);
    } catch {
      // delivery needs the measures; the rest of the metrics still serve
    }
  }
  const lease = await prisma.workerLease.findUnique({ where: { name: "scheduler" } });
  if (lease && lease.expiresAt.getTime() > now.getTime()) leader.set({ holder: lease.holderId }, 1);
  return { contentType: registry.contentType, text: await registry.metrics() };
}
