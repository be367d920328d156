import type { PrismaClient } from "@tranche/db";
import { formatPpm, PPM, type WhatIfInput, type WhatIfResult } from "@tranche/contracts";
import { effectiveAllocations, runCycle, type ClusterSnapshot } from "@tranche/scheduler-core";
import { loadCycleInput } from "../runtime/load-snapshot";
import { managesTreeNode, type Actor } from "../auth/actor";
import { badInput, forbidden, notFound } from "../errors";

export type { WhatIfJobRow, WhatIfResult } from "@tranche/contracts";

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/**
 * What-if preview of an allocation change: load the cluster's snapshot as the worker would, run the
 * core's runCycle on it as is and on a copy with the new allocations, and compare the pending order.
 * The copy's entitlements are rescaled as if the new allocations had held for the whole lookback
 * window (entitlement x new effective / old effective), which is where a change converges to.
 * Pure reads: nothing is stored and the policy is the core's, not re-implemented.
 */
export async function previewAllocations(prisma: PrismaClient, actor: Actor, input: WhatIfInput): Promise<WhatIfResult> {
  const cluster = await prisma.cluster.findUnique({ where: { name: input.cluster } });
  if (!cluster) throw badInput(`Unknown cluster '${input.cluster}'`, "cluster");
  const parent = await prisma.budgetTreeNode.findUnique({ where: { id: input.parentId } });
  if (!parent) throw notFound(`There is no budget tree node '${input.parentId}'`);
  if (!(await managesTreeNode(prisma, actor, parent.id)))
    throw forbidden(`You do not manage '${parent.path}': you may preview changes only inside the subtree you manage`);
  const now = Math.floor(Date.now() / 1000);
  const { snapshot, policy } = await loadCycleInput(prisma, cluster.id, now);
  const paths = new Map((await prisma.budgetTreeNode.findMany({ select: { id: true, path: true } })).map((n) => [n.id, n.path]));

  const changes = new Map(input.allocations.map((a) => [a.treeNodeId, a.ppm]));
  const siblings = snapshot.tree.filter((n) => n.parentId === parent.id);
  for (const id of changes.keys())
    if (!siblings.some((s) => s.id === id)) throw badInput(`Tree node ${id} is not a child of '${parent.path}'`, "allocations");
  const sum = siblings.reduce((s, n) => s + (changes.get(n.id) ?? n.allocationPpm), 0);
  const valid = sum <= PPM;

  const edited: ClusterSnapshot = structuredClone(snapshot);
  for (const n of edited.tree) if (changes.has(n.id)) n.allocationPpm = changes.get(n.id)!;
  const oldEff = effectiveAllocations(snapshot.tree);
  const newEff = effectiveAllocations(edited.tree);
  const root = snapshot.tree.find((n) => n.parentId === null);
  const rootEnt = root?.entitlementGpuSeconds ?? 0;
  for (const n of edited.tree) {
    const o = oldEff.get(n.id) ?? 0;
    const e = newEff.get(n.id) ?? 0;
    if (o === e) continue;
    n.entitlementGpuSeconds = o > 0 ? Math.round((n.entitlementGpuSeconds * e) / o) : Math.round(e * rootEnt);
  }

  const before = runCycle(snapshot, policy, now);
  const after = runCycle(edited, policy, now);
  const started = (r: typeof before) =>
    new Set(r.plan.filter((op) => op.op === "START").map((op) => (op as { jobId: string }).jobId));
  const sb = started(before);
  const sa = started(after);
  const posB = new Map(before.order.map((id, i) => [id, i + 1]));
  const posA = new Map(after.order.map((id, i) => [id, i + 1]));
  const jobs = new Map(snapshot.pending.map((j) => [j.id, j]));
  const ids = [...new Set([...after.order.slice(0, input.limit ?? 25), ...before.order.slice(0, input.limit ?? 25)])];
  const order = ids
    .map((id) => {
      const j = jobs.get(id);
      return {
        jobId: id,
        name: j?.name ?? id,
        budget: j ? (paths.get(j.budgetId) ?? j.budgetId) : "",
        gpus: j?.gpus ?? 0,
        before: posB.get(id) ?? null,
        after: posA.get(id) ?? null,
        startsBefore: sb.has(id),
        startsAfter: sa.has(id),
      };
    })
    .sort((a, b) => (a.after ?? 1e9) - (b.after ?? 1e9));
  const touched = new Set([parent.id, ...siblings.map((s) => s.id)]);
  const ratioMap = (r: typeof before) => new Map(r.ratios.map((x) => [x.treeNodeId, x.projectedRatio]));
  const rb = ratioMap(before);
  const ra = ratioMap(after);
  return {
    cluster: cluster.name,
    at: new Date(now * 1000).toISOString(),
    siblingsSumPpm: sum,
    valid,
    problem: valid ? null : `The children of '${parent.path}' would sum to ${formatPpm(sum)}; siblings may sum to at most 100%`,
    ratios: [...touched].map((id) => ({
      treeNodeId: id,
      path: paths.get(id) ?? id,
      before: finite(rb.get(id) ?? Infinity),
      after: finite(ra.get(id) ?? Infinity),
    })),
    order,
    pendingCount: before.order.length,
    moved: before.order.filter((id) => posA.get(id) !== posB.get(id)).length,
  };
}
