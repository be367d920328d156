import type { PrismaClient, Tx } from "@tranche/db";
import type { AuditQueryInput } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { auditScope } from "./audit-scope";

export interface AuditTarget {
  type: string;
  id: string;
  /** What a person recognises: a tree path, an e-mail, a cluster name. Kept in details so filters find it. */
  label: string;
}

/** One audit row for one administration action, written in the action's own transaction. */
export async function writeAudit(
  tx: Tx,
  actor: Actor | null,
  action: string,
  target: AuditTarget,
  details: Record<string, unknown> = {},
): Promise<void> {
  await tx.auditLog.create({
    data: {
      actorId: actor?.id ?? null,
      action,
      targetType: target.type,
      targetId: target.id,
      details: { target: target.label, ...details } as object,
    },
  });
}

export interface AuditEntryView {
  id: string;
  at: string;
  actor: { id: string; email: string; name: string } | null;
  action: string;
  targetType: string;
  targetId: string;
  target: string;
  details: Record<string, unknown>;
}

/**
 * What a person recognises as an entry's target: the label written with it, else a name the details
 * carry (a token's or node's name, an allocation's parent path), the stored id only as a last resort.
 */
export function auditTargetLabel(details: Record<string, unknown>, targetId: string): string {
  for (const key of ["target", "name", "node", "parent"]) {
    const v = details[key];
    if (typeof v === "string" && v) return v;
  }
  return targetId;
}

/**
 * The audit log the actor may read (audit-scope.ts), newest first, filtered by actor e-mail, action
 * (prefix), target (name or id) and time; `before` (an entry's id) pages to older entries.
 */
export async function listAudit(prisma: PrismaClient, actor: Actor, q: AuditQueryInput): Promise<AuditEntryView[]> {
  const scope = await auditScope(prisma, actor);
  const at =
    q.since || q.until
      ? { ...(q.since ? { gte: new Date(q.since) } : {}), ...(q.until ? { lte: new Date(q.until) } : {}) }
      : undefined;
  const rows = await prisma.auditLog.findMany({
    where: {
      AND: [
        scope,
        {
          ...(q.before ? { id: { lt: BigInt(q.before) } } : {}),
          ...(at ? { at } : {}),
          ...(q.action ? { action: { startsWith: q.action } } : {}),
          ...(q.actor ? { actor: { email: { contains: q.actor.toLowerCase() } } } : {}),
          ...(q.target
            ? {
                OR: [
                  { targetId: q.target },
                  { targetType: q.target },
                  { details: { path: ["target"], string_contains: q.target } },
                ],
              }
            : {}),
        },
      ],
    },
    orderBy: { id: "desc" },
    take: q.limit ?? 100,
    include: { actor: { select: { id: true, email: true, name: true } } },
  });
  return rows.map((r) => {
    const details = (r.details ?? {}) as Record<string, unknown>;
    return {
      id: r.id.toString(),
      at: r.at.toISOString(),
      actor: r.actor,
      action: r.action,
      targetType: r.targetType,
      targetId: r.targetId,
      target: auditTargetLabel(details, r.targetId),
      details,
    };
  });
}
