import type { Db, Actor } from "../auth/actor";

/**
 * The actor as a job's timeline names them: "Grace" for the owner, an operator or an admin, and "Grace,
 * manager of lab/vision" for a manager acting on someone else's job, naming the subtree they manage that
 * holds its budget, so the owner reads why someone else could.
 */
export async function actingAs(db: Db, actor: Actor, job: { userId: string; budgetId: string }): Promise<string> {
  if (actor.role !== "MANAGER" || actor.id === job.userId) return actor.name;
  const rows = await db.$queryRaw<{ path: string }[]>`
    SELECT m.path FROM budget_manager bm
      JOIN budget_tree_node m ON m.id = bm."treeNodeId"
      JOIN budget_tree_node b ON b.id = ${job.budgetId} AND (b.path = m.path OR starts_with(b.path, m.path || '/'))
    WHERE bm."userId" = ${actor.id}
    ORDER BY length(m.path) DESC LIMIT 1`;
  return rows[0] ? `${actor.name}, manager of ${rows[0].path}` : actor.name;
}
