import type { Prisma } from "@tranche/db";
import { managedBudgetIds, requireRole, type Actor, type Db } from "../auth/actor";

/**
 * Who reads which audit rows, decided by the row's target alone (one rule, used by every surface):
 * - admins: every row;
 * - operators: rows about hosts and clusters (a node's cordon, drain, return, repair, retirement and
 *   revoked credential; a cluster's creation and policy; enrollment tokens, which are written against
 *   their cluster);
 * - managers: rows about a tree node or budget inside a subtree they manage (shares, members, managers,
 *   per-user limits, the tree's shape), by the same subtree rule that lets them change it;
 * - researchers: none.
 * Users, API tokens, single sign-on rules and lab imports stay admins' alone. Jobs write no audit rows.
 */
export const OPERATOR_AUDIT_TARGETS = ["node", "cluster"] as const;
export const MANAGER_AUDIT_TARGETS = ["budget_tree_node", "budget"] as const;

/** The rows `actor` may read, as a where-clause for the query itself (so pagination stays correct). */
export async function auditScope(db: Db, actor: Actor): Promise<Prisma.AuditLogWhereInput> {
  requireRole(actor, ["OPERATOR", "MANAGER"], "read the audit log");
  if (actor.role === "ADMIN") return {};
  if (actor.role === "OPERATOR") return { targetType: { in: [...OPERATOR_AUDIT_TARGETS] } };
  const subtree = await managedBudgetIds(db, actor);
  return { targetType: { in: [...MANAGER_AUDIT_TARGETS] }, targetId: { in: [...subtree] } };
}
