import type { Prisma } from "@tranche/db";
import { managedBudgetIds, requireRole, type Actor, type Db } from "../auth/actor";

/**
 * Who reads which audit rows, decided by the row's target alone (one rule, used by every surface):
 * - admins: every row;
 * - operators: rows about hosts and clusters (a node's cordon, drain, return, repair, retirement and
 *   revoked credential; a cluster's creation and policy; enrollment tokens, which are written against
 *   their cluster) and about jobs (someone's cancel, hold or release of another person's job: operators
 *   hold and release anyone's);
 * - managers: rows about a tree node or budget inside a subtree they manage (shares, members, managers,
 *   per-user limits, the tree's shape), by the same subtree rule that lets them change it, and about jobs
 *   charged to a budget there;
 * - researchers: none.
 * Users, API tokens, single sign-on rules and lab imports stay admins' alone. Jobs write a row only when
 * someone acts on another person's job (job-action-audit.ts).
 */
export const OPERATOR_AUDIT_TARGETS = ["node", "cluster", "job"] as const;
export const MANAGER_AUDIT_TARGETS = ["budget_tree_node", "budget"] as const;

/** The rows `actor` may read, as a where-clause for the query itself (so pagination stays correct). */
export async function auditScope(db: Db, actor: Actor): Promise<Prisma.AuditLogWhereInput> {
  requireRole(actor, ["OPERATOR", "MANAGER"], "read the audit log");
  if (actor.role === "ADMIN") return {};
  if (actor.role === "OPERATOR") return { targetType: { in: [...OPERATOR_AUDIT_TARGETS] } };
  const subtree = await managedBudgetIds(db, actor);
  const ids = [...subtree];
  return {
    OR: [
      { targetType: { in: [...MANAGER_AUDIT_TARGETS] }, targetId: { in: ids } },
      ...(ids.length > 0 ? [{ targetType: "job", OR: ids.map((id) => ({ details: { path: ["budgetId"], equals: id } })) }] : []),
    ],
  };
}
