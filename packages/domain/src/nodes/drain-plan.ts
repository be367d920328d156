import type { PrismaClient } from "@tranche/db";
import { maintenanceTimeWords, type NodeView } from "@tranche/contracts";
import { formatDuration, nodeStateText } from "@tranche/contracts/format";
import type { Actor } from "../auth/actor";
import { badInput, conflict, notFound } from "../errors";
import { changeNode } from "./node-change";
import { listNodes, NO_DRAIN_PLAN, requireNodeAction } from "./nodes";

/** Who may plan: the nodes an operator may drain now (READY, CORDONED). */
const PLANNABLE = ["READY", "CORDONED"];

/**
 * R8's planned drain: from `at` the node drains (the core's planNodeStates); before it, only work that may
 * leave by then starts there. Operators and admins, checked before anything is read. A later plan of the
 * same node replaces it. A NodeEvent (its history) and an AuditLog row in the same transaction.
 */
export async function planNodeDrain(
  prisma: PrismaClient,
  actor: Actor,
  which: { id: string } | { name: string },
  at: string,
  reason?: string,
  now: Date = new Date(),
): Promise<NodeView> {
  requireNodeAction(actor, "drain");
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) throw badInput("at is not a date and time", "at");
  if (when.getTime() <= now.getTime())
    throw badInput(
      `at has passed (${maintenanceTimeWords(when.toISOString(), now, "UTC")} UTC, ${formatDuration((now.getTime() - when.getTime()) / 1000)} ago): give a time to come, or drain now without one`,
      "at",
    );
  const node = await prisma.node.findUnique({ where: which });
  if (!node) throw notFound(`There is no node '${"id" in which ? which.id : which.name}'`);
  if (!PLANNABLE.includes(node.state))
    throw conflict(
      `Cannot plan a drain of ${node.name}: it is ${nodeStateText(node.state)}, and only ready or cordoned nodes can be drained`,
    );
  const why = reason?.trim() || null;
  const words = `Maintenance planned for ${maintenanceTimeWords(when.toISOString(), now, "UTC")} UTC${why ? `: ${why}` : ""}`;
  await prisma.$transaction(async (tx) => {
    await changeNode(tx, node, {
      to: node.state,
      at: now,
      reason: words,
      actorId: actor.id,
      data: { drainAt: when, drainReason: why, drainPlannedById: actor.id },
    });
    await tx.auditLog.create({
      data: {
        actorId: actor.id,
        action: "node.planDrain",
        targetType: "node",
        targetId: node.id,
        at: now,
        details: { node: node.name, at: when.toISOString(), reason: why },
      },
    });
  });
  await prisma.$executeRawUnsafe(`SELECT pg_notify('tranche_jobs', $1)`, node.clusterId).catch(() => undefined);
  return (await listNodes(prisma, undefined, node.name))[0]!;
}

/** Cancels a node's planned drain (operators and admins): it stays in the state it is in. */
export async function cancelNodeDrain(
  prisma: PrismaClient,
  actor: Actor,
  which: { id: string } | { name: string },
  now: Date = new Date(),
): Promise<NodeView> {
  requireNodeAction(actor, "drain");
  const node = await prisma.node.findUnique({ where: which });
  if (!node) throw notFound(`There is no node '${"id" in which ? which.id : which.name}'`);
  const planned = node.drainAt;
  if (planned === null) throw conflict(`${node.name} has no planned drain to cancel`);
  await prisma.$transaction(async (tx) => {
    await changeNode(tx, node, {
      to: node.state,
      at: now,
      reason: "Planned maintenance cancelled",
      actorId: actor.id,
      data: NO_DRAIN_PLAN,
    });
    await tx.auditLog.create({
      data: {
        actorId: actor.id,
        action: "node.cancelDrain",
        targetType: "node",
        targetId: node.id,
        at: now,
        details: { node: node.name, at: planned.toISOString(), reason: node.drainReason },
      },
    });
  });
  await prisma.$executeRawUnsafe(`SELECT pg_notify('tranche_jobs', $1)`, node.clusterId).catch(() => undefined);
  return (await listNodes(prisma, undefined, node.name))[0]!;
}
