import type { RevokedNodeView } from "@tranche/contracts";
import type { PrismaClient } from "@tranche/db";
import { requireRole, type Actor } from "../auth/actor";
import { conflict, notFound } from "../errors";
import { writeAudit } from "../admin/audit";
import { changeNode } from "./node-change";

/**
 * Revoke a node's credential: its agent is refused from its next call on and must enroll again. A READY
 * node is cordoned in the same transaction, with the revocation as its reason in the node's history:
 * left READY, the scheduler kept starting work on a node no agent could report for, and those jobs were
 * lost with it when it went down for silence (its history said only "missed heartbeats").
 */
export async function revokeNodeCredential(
  prisma: PrismaClient,
  actor: Actor,
  nodeName: string,
  reason?: string,
): Promise<RevokedNodeView> {
  requireRole(actor, ["OPERATOR"], "revoke node credentials");
  // Kept in the node's history and the audit log, as every other node action's reason is.
  const why = reason?.trim() || null;
  const result = await prisma.$transaction(async (tx) => {
    const node = await tx.node.findUnique({ where: { name: nodeName }, include: { cluster: { select: { name: true } } } });
    if (!node) throw notFound(`There is no node '${nodeName}'`);
    if (node.state === "RETIRED") throw conflict(`${node.name} is retired: its agent is refused already; nothing was changed`);
    if (!node.agentCredentialHash) throw conflict(`Node ${nodeName} has no credential to revoke`);
    const now = new Date();
    const cordon = node.state === "READY";
    const revoked = `Its credential was revoked${why ? ` (${why})` : ""}`;
    const history = cordon
      ? `${revoked}: nothing new starts here, and its agent is refused until it enrolls again with a new token.`
      : `${revoked}: its agent is refused until it enrolls again with a new token.`;
    // A node that stays in its state gets a line too: a revocation (and its reason) is part of its history.
    await changeNode(tx, node, {
      to: cordon ? "CORDONED" : node.state,
      at: now,
      reason: history,
      actorId: actor.id,
      data: {
        agentCredentialHash: null,
        ...(cordon ? { state: "CORDONED" as const, stateReason: history, stateChangedAt: now } : {}),
      },
    });
    const [running] = await tx.$queryRaw<{ n: bigint }[]>`
      SELECT count(DISTINCT s."jobId") AS n FROM segment_placement p
      JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL
      WHERE p."nodeId" = ${node.id}`;
    await writeAudit(
      tx,
      actor,
      "node.revoke-credential",
      { type: "node", id: node.id, label: node.name },
      { cluster: node.cluster.name, reason: why, ...(cordon ? { from: "READY", to: "CORDONED" } : {}) },
    );
    return {
      clusterId: node.clusterId,
      view: {
        node: node.name,
        cluster: node.cluster.name,
        revoked: true as const,
        cordoned: cordon,
        runningJobs: Number(running?.n ?? 0),
      },
    };
  });
  // The scheduler hears of the cordon at once, as for an operator's cordon.
  await prisma.$executeRawUnsafe(`SELECT pg_notify('tranche_jobs', $1)`, result.clusterId).catch(() => undefined);
  return result.view;
}
