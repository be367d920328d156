import { IN_SERVICE } from "../nodes/in-service";
import { ACTIVE_JOB_STATES, type AllocationHistoryRow, type BudgetTreeNodeView, type BudgetTreeResult } from "@tranche/contracts";
import type { PrismaClient } from "@tranche/db";
import { childrenRefusal } from "../admin/parent-rule";
import { managedRootIds, type Actor } from "../auth/actor";
import { clusterIdNamed } from "../cluster-named";
import { notFound } from "../errors";
import { loadWindowTree } from "../runtime/load-snapshot";

export type { AllocationHistoryRow, BudgetNodeStats, BudgetTreeNodeView, BudgetTreeResult } from "@tranche/contracts";

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);

/**
 * The budget tree with each node's allocation per cluster, its usage and entitlement over the
 * lookback window and its fair-share ratio, as the worker's latest scheduling cycle computed them
 * (the core's computeRatios; nothing recomputed here), and which nodes the actor may edit.
 */
export async function getBudgetTree(prisma: PrismaClient, actor: Actor | null): Promise<BudgetTreeResult> {
  const [nodes, clusters, members, jobs] = await Promise.all([
    prisma.budgetTreeNode.findMany({
      where: { archivedAt: null },
      include: { allocations: true },
      orderBy: { name: "asc" },
    }),
    prisma.cluster.findMany({ orderBy: { name: "asc" }, include: { nodes: { where: IN_SERVICE, select: { gpuCount: true } } } }),
    prisma.budgetMember.groupBy({ by: ["budgetId"], _count: { _all: true } }),
    prisma.job.groupBy({ by: ["budgetId"], where: { state: { in: [...ACTIVE_JOB_STATES] } }, _count: { _all: true } }),
  ]);
  const memberCount = new Map(members.map((m) => [m.budgetId, m._count._all]));
  const activeJobs = new Map(jobs.map((j) => [j.budgetId, j._count._all]));
  const cycles = await Promise.all(
    clusters.map((c) =>
      prisma.schedulingCycle.findFirst({
        where: { clusterId: c.id },
        orderBy: { at: "desc" },
        select: { at: true, ratios: true },
      }),
    ),
  );
  // Entitlement earned so far at the same moment as the cycle's usage and ratios.
  const accrued = await Promise.all(
    clusters.map((c, i) => {
      const at = cycles[i]?.at;
      return at ? loadWindowTree(prisma, c.id, Math.floor(at.getTime() / 1000)).then((w) => w.accruedEntitlement) : null;
    }),
  );
  const ratioBy = new Map<string, Map<string, Record<string, unknown>>>();
  clusters.forEach((c, i) => {
    const list = Array.isArray(cycles[i]?.ratios) ? (cycles[i]!.ratios as Record<string, unknown>[]) : [];
    ratioBy.set(c.id, new Map(list.map((r) => [String(r.treeNodeId), r])));
  });
  const managed = actor ? new Set(await managedRootIds(prisma, actor)) : new Set<string>();
  const byId = new Map<string, BudgetTreeNodeView>();
  for (const n of nodes) {
    byId.set(n.id, {
      id: n.id,
      name: n.name,
      path: n.path,
      parentId: n.parentId,
      isBudget: true,
      editable: false,
      managesChildren: false,
      takesChildren: childrenRefusal(n.path, activeJobs.get(n.id) ?? 0, memberCount.get(n.id) ?? 0) === null,
      members: memberCount.get(n.id) ?? 0,
      maxGpusPerUser: n.maxGpusPerUser,
      perCluster: {},
      children: [],
    });
  }
  let root: BudgetTreeNodeView | null = null;
  for (const n of nodes) {
    const v = byId.get(n.id)!;
    if (n.parentId && byId.has(n.parentId)) {
      const p = byId.get(n.parentId)!;
      p.children.push(v);
      p.isBudget = false;
    } else if (!n.parentId) root = v;
  }
  const walk = (v: BudgetTreeNodeView, parentEffective: Record<string, number>, inManaged: boolean) => {
    const managesHere = inManaged || managed.has(v.id);
    v.managesChildren = managesHere;
    const eff: Record<string, number> = {};
    const row = nodes.find((n) => n.id === v.id)!;
    clusters.forEach((c, i) => {
      const ppm = row.allocations.find((a) => a.clusterId === c.id)?.ppm ?? (v.parentId ? 0 : 1_000_000);
      eff[c.name] = (parentEffective[c.name] ?? 1) * (ppm / 1_000_000);
      const r = ratioBy.get(c.id)!.get(v.id);
      v.perCluster[c.name] = {
        ppm,
        effective: eff[c.name]!,
        usageGpuSeconds: r ? num(r.usageGpuSeconds) : null,
        entitlementGpuSeconds: r ? num(r.entitlementGpuSeconds) : null,
        accruedEntitlementGpuSeconds: r ? (accrued[i]?.[v.id] ?? null) : null,
        ratio: r ? num(r.ratio) : null,
        heldGpus: r ? num(r.heldGpus) : null,
      };
    });
    for (const ch of v.children) {
      ch.editable = managesHere;
      walk(ch, eff, managesHere);
    }
  };
  if (root) walk(root, {}, false);
  return {
    clusters: clusters.map((c, i) => ({
      id: c.id,
      name: c.name,
      gpuType: c.gpuType,
      gpus: c.nodes.reduce((s, n) => s + n.gpuCount, 0),
      cycleAt: cycles[i]?.at.toISOString() ?? null,
      createdAt: c.createdAt.toISOString(),
    })),
    root,
    managedPaths: nodes.filter((n) => managed.has(n.id)).map((n) => n.path),
  };
}

/**
 * Allocation changes, newest first: of one cluster, of one tree node (by id, or by path with its
 * subtree: what changed under a division), or all.
 */
export async function getAllocationHistory(
  prisma: PrismaClient,
  input: { cluster?: string; treeNodeId?: string; path?: string; limit?: number },
): Promise<AllocationHistoryRow[]> {
  const rows = await prisma.allocationChange.findMany({
    where: {
      ...(input.cluster ? { cluster: { name: input.cluster } } : {}),
      ...(input.treeNodeId ? { treeNodeId: input.treeNodeId } : {}),
      ...(input.path ? { treeNode: { OR: [{ path: input.path }, { path: { startsWith: `${input.path}/` } }] } } : {}),
    },
    include: { treeNode: { select: { path: true } }, cluster: { select: { name: true } }, actor: { select: { name: true } } },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: input.limit ?? 50,
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    at: r.at.toISOString(),
    path: r.treeNode.path,
    cluster: r.cluster.name,
    fromPpm: r.fromPpm,
    toPpm: r.toPpm,
    actor: r.actor?.name ?? null,
    note: r.note,
  }));
}

/** getAllocationHistory for REST and the CLI: a cluster or tree node that does not exist is an error, not "no changes". */
export async function listAllocationChanges(
  prisma: PrismaClient,
  input: { cluster?: string; path?: string; limit?: number },
): Promise<AllocationHistoryRow[]> {
  if (input.cluster !== undefined) await clusterIdNamed(prisma, input.cluster);
  if (
    input.path !== undefined &&
    !(await prisma.budgetTreeNode.findUnique({ where: { path: input.path }, select: { id: true } }))
  )
    throw notFound(`There is no budget or tree node '${input.path}'`);
  return getAllocationHistory(prisma, input);
}
