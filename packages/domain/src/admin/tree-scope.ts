import { requireRole, type Actor, type Db } from "../auth/actor";
import { forbidden } from "../errors";

/**
 * Where a caller may shape the budget tree: admins anywhere; a manager strictly below a node they
 * manage. They may give that node children, but never rename, move or archive it, what is above it or
 * beside it: those change what their own manager handed them. Decided on paths alone, before any node
 * is read, so a manager outside their subtree learns nothing of what exists there (as a researcher,
 * refused by role, learns nothing).
 */

const WHAT = "change the budget tree";

/** The role check, first of all (admins pass every role). */
export const requireTreeShaper = (actor: Actor): void => requireRole(actor, ["MANAGER", "ADMIN"], WHAT);

// As treePath reads a path: trimmed, without slashes at its ends.
const tidy = (path: string) => path.trim().replace(/^\/+|\/+$/g, "");

async function managedPaths(db: Db, actor: Actor): Promise<string[]> {
  const rows = await db.budgetManager.findMany({
    where: { userId: actor.id, treeNode: { archivedAt: null } },
    select: { treeNode: { select: { path: true } } },
  });
  return rows.map((r) => r.treeNode.path);
}

/** The actor may add a node under `parent` (a node they manage or one below it); none: a new root. */
export async function assertMayAddUnder(db: Db, actor: Actor, parent: string | undefined): Promise<void> {
  requireTreeShaper(actor);
  if (actor.role === "ADMIN") return;
  if (parent === undefined) throw forbidden("Only admins may start the tree; managers add nodes below a node they manage");
  const p = tidy(parent);
  const managed = await managedPaths(db, actor);
  if (!managed.some((m) => p === m || p.startsWith(m + "/")))
    throw forbidden(`You do not manage '${p}': you may add nodes only inside the subtree you manage`);
}

/** The actor may rename, move or archive the node at `path` (strictly below a node they manage). */
export async function assertMayReshape(db: Db, actor: Actor, path: string): Promise<void> {
  requireTreeShaper(actor);
  if (actor.role === "ADMIN") return;
  const p = tidy(path);
  const managed = await managedPaths(db, actor);
  if (managed.some((m) => p.startsWith(m + "/"))) return;
  if (managed.includes(p))
    throw forbidden(`You manage '${p}' itself: only admins may rename, move or archive it; you may change the nodes below it`);
  throw forbidden(
    `You do not manage ${p ? `'${p}'` : "that node"}: you may rename, move or archive only nodes inside the subtree you manage`,
  );
}
