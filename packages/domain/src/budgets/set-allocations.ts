import type { PrismaClient, Tx } from "@tranche/db";
import { formatPpm, PPM, type SetAllocationsInput } from "@tranche/contracts";
import { managesTreeNode, type Actor } from "../auth/actor";
import { badInput, forbidden, notFound } from "../errors";

export interface SetAllocationsResult {
  changed: { treeNodeId: string; path: string; fromPpm: number; toPpm: number }[];
  siblingsSumPpm: number;
}

/**
 * Set the allocations of children of `parentId` on one cluster (SPEC §2). Invariants, checked
 * exactly in ppm inside one transaction that locks the parent row (so two managers editing the same
 * siblings serialize): every edited node is a child of the parent; the siblings' new sum is at most
 * 100%; the actor manages the parent or one of its ancestors. Each change appends an
 * AllocationChange (who, when, from, to) and an AuditLog row. A failure stores nothing.
 */
export async function setAllocations(
  prisma: PrismaClient,
  actor: Actor,
  input: SetAllocationsInput,
): Promise<SetAllocationsResult> {
  return prisma.$transaction((tx) => setAllocationsIn(tx, actor, input));
}

/** setAllocations inside the caller's transaction (a lab import's). */
export async function setAllocationsIn(tx: Tx, actor: Actor, input: SetAllocationsInput): Promise<SetAllocationsResult> {
  if (actor.role !== "MANAGER" && actor.role !== "ADMIN") throw forbidden("Only managers and admins may change allocations");
  const cluster = await tx.cluster.findUnique({ where: { name: input.cluster } });
  if (!cluster) throw badInput(`Unknown cluster '${input.cluster}'`, "cluster");
  const parent = await tx.budgetTreeNode.findUnique({ where: { id: input.parentId } });
  if (!parent || parent.archivedAt) throw notFound(`There is no budget tree node '${input.parentId}'`);
  if (!(await managesTreeNode(tx, actor, parent.id)))
    throw forbidden(`You do not manage '${parent.path}': you may change allocations only inside the subtree you manage`);
  const seen = new Set<string>();
  for (const a of input.allocations) {
    if (seen.has(a.treeNodeId)) throw badInput(`Tree node ${a.treeNodeId} appears twice in one change`, "allocations");
    seen.add(a.treeNodeId);
  }
  await tx.$queryRaw`SELECT id FROM budget_tree_node WHERE id = ${parent.id} FOR UPDATE`;
  const children = await tx.budgetTreeNode.findMany({
    where: { parentId: parent.id, archivedAt: null },
    include: { allocations: { where: { clusterId: cluster.id } } },
  });
  const byId = new Map(children.map((c) => [c.id, c]));
  for (const a of input.allocations) {
    if (!byId.has(a.treeNodeId)) throw badInput(`Tree node ${a.treeNodeId} is not a child of '${parent.path}'`, "allocations");
  }
  const next = new Map(children.map((c) => [c.id, c.allocations[0]?.ppm ?? 0]));
  for (const a of input.allocations) next.set(a.treeNodeId, a.ppm);
  const sum = [...next.values()].reduce((s, x) => s + x, 0);
  if (sum > PPM)
    throw badInput(
      `Allocations of the children of '${parent.path}' on ${cluster.name} would sum to ${formatPpm(sum)}; siblings may sum to at most 100%`,
      "allocations",
    );
  const now = new Date();
  const changed: SetAllocationsResult["changed"] = [];
  for (const a of input.allocations) {
    const child = byId.get(a.treeNodeId)!;
    const from = child.allocations[0]?.ppm ?? 0;
    if (from === a.ppm) continue;
    await tx.allocation.upsert({
      where: { treeNodeId_clusterId: { treeNodeId: child.id, clusterId: cluster.id } },
      create: { treeNodeId: child.id, clusterId: cluster.id, ppm: a.ppm },
      update: { ppm: a.ppm },
    });
    await tx.allocationChange.create({
      data: {
        treeNodeId: child.id,
        clusterId: cluster.id,
        fromPpm: from,
        toPpm: a.ppm,
        at: now,
        actorId: actor.id,
        note: input.note ?? null,
      },
    });
    changed.push({ treeNodeId: child.id, path: child.path, fromPpm: from, toPpm: a.ppm });
  }
  if (changed.length > 0)
    await tx.auditLog.create({
      data: {
        actorId: actor.id,
        action: "allocation.set",
        targetType: "budget_tree_node",
        targetId: parent.id,
        details: { cluster: cluster.name, parent: parent.path, changed, note: input.note ?? null },
        at: now,
      },
    });
  return { changed, siblingsSumPpm: sum };
}
