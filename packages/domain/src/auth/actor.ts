import type { PrismaClient, Tx } from "@tranche/db";
import { forbidden } from "../errors";

export type Role = "RESEARCHER" | "MANAGER" | "OPERATOR" | "ADMIN";
export const ROLES = ["RESEARCHER", "MANAGER", "OPERATOR", "ADMIN"] as const satisfies readonly Role[];

/** Who is calling: resolved from a session cookie or a bearer API token, never from the request body. */
export interface Actor {
  id: string;
  email: string;
  name: string;
  role: Role;
}

export type Db = PrismaClient | Tx;

/** A role as a sentence names it, with its article: "a researcher", "an operator". */
export const roleWithArticle = (role: Role): string =>
  `${role === "OPERATOR" || role === "ADMIN" ? "an" : "a"} ${role.toLowerCase()}`;

export function requireRole(actor: Actor, roles: readonly Role[], what: string): void {
  if (actor.role === "ADMIN" || roles.includes(actor.role)) return;
  throw forbidden(
    `Only ${roles.map((r) => r.toLowerCase() + "s").join(" and ")} may ${what}; you are signed in as ${roleWithArticle(actor.role)}.`,
  );
}

/** SPEC §6: a researcher charges only budgets they belong to; admins charge any. */
export async function canChargeBudget(db: Db, actor: Actor, budgetId: string): Promise<boolean> {
  if (actor.role === "ADMIN") return true;
  const rows = await db.$queryRaw<
    unknown[]
  >`SELECT 1 FROM budget_member WHERE "budgetId" = ${budgetId} AND "userId" = ${actor.id} LIMIT 1`;
  return rows.length > 0;
}

/**
 * Tree node ids whose subtree the actor manages (admins: the roots). Only a manager manages: a manager
 * given another role keeps their budget_manager rows (an admin may give the role back), and those
 * must not let them on.
 */
export async function managedRootIds(db: Db, actor: Actor): Promise<string[]> {
  if (actor.role === "ADMIN") {
    const roots = await db.budgetTreeNode.findMany({ where: { parentId: null }, select: { id: true } });
    return roots.map((r) => r.id);
  }
  if (actor.role !== "MANAGER") return [];
  const rows = await db.budgetManager.findMany({ where: { userId: actor.id }, select: { treeNodeId: true } });
  return rows.map((r) => r.treeNodeId);
}

/** Does the actor manage `treeNodeId` itself or one of its ancestors? Walks up by parentId. */
export async function managesTreeNode(db: Db, actor: Actor, treeNodeId: string): Promise<boolean> {
  if (actor.role === "ADMIN") return true;
  const managed = new Set(await managedRootIds(db, actor));
  if (managed.size === 0) return false;
  let id: string | null = treeNodeId;
  for (let guard = 0; id && guard < 64; guard++) {
    if (managed.has(id)) return true;
    const n: { parentId: string | null } | null = await db.budgetTreeNode.findUnique({
      where: { id },
      select: { parentId: true },
    });
    id = n?.parentId ?? null;
  }
  return false;
}

/**
 * How much of a job the actor may read. "full": command, env and logs (its owner, admins, managers of
 * its budget's subtree). "command": the command and logs with env values masked (operators, who debug
 * nodes but have no business with a team's keys). "none": neither (everyone else). Values submitted as
 * secretEnv are shown to nobody, whatever this says.
 */
export type JobAccess = "full" | "command" | "none";

export function jobAccess(
  actor: Actor,
  job: { userId: string; budgetId: string },
  managedBudgets: ReadonlySet<string>,
): JobAccess {
  if (actor.id === job.userId || actor.role === "ADMIN") return "full";
  if (actor.role === "MANAGER") return managesJob(actor, job, managedBudgets) ? "full" : "none";
  return actor.role === "OPERATOR" ? "command" : "none";
}

/**
 * Does the actor manage the job's budget: a manager of a subtree it lies in (`managedBudgets`: their
 * managedBudgetIds), as Slurm's coordinators act on the jobs of the accounts they coordinate. The one
 * rule that lets a manager read, hold, release, cancel and change someone else's job.
 */
export const managesJob = (actor: Actor, job: { budgetId: string }, managedBudgets: ReadonlySet<string>): boolean =>
  actor.role === "MANAGER" && managedBudgets.has(job.budgetId);

/** Who may cancel a job: its owner (SPEC R4), managers of its budget and admins. */
export const mayCancel = (
  actor: Actor,
  job: { userId: string; budgetId: string },
  managedBudgets: ReadonlySet<string>,
): boolean => actor.id === job.userId || actor.role === "ADMIN" || managesJob(actor, job, managedBudgets);

/** Who may hold or release a job, or a whole array, or change a waiting one: its owner, managers of its budget, operators and admins. */
export const mayHold = (actor: Actor, job: { userId: string; budgetId: string }, managedBudgets: ReadonlySet<string>): boolean =>
  actor.id === job.userId || actor.role === "OPERATOR" || actor.role === "ADMIN" || managesJob(actor, job, managedBudgets);

/**
 * The jobs whose owner's e-mail the actor may see, as SQL over job alias `j` (jobAccess other than
 * "none": everyone's for admins and operators, else their own and, for a manager, those charged to
 * `managedBudgets`), pushing its values with `p`. For searches by e-mail, which must not tell anyone
 * whose e-mail a job they may not read carries.
 */
export function ownerEmailVisibleSql(actor: Actor, managedBudgets: ReadonlySet<string>, p: (v: unknown) => string): string {
  if (actor.role === "ADMIN" || actor.role === "OPERATOR") return "TRUE";
  const mine = `j."userId" = ${p(actor.id)}`;
  return actor.role === "MANAGER" ? `(${mine} OR j."budgetId" = ANY(${p([...managedBudgets])}::text[]))` : mine;
}

/**
 * Which holds the actor may lift, once mayHold lets them at the job: operators and admins any; anyone
 * else a hold of their own, and a manager also the owner's own hold. A hold by an operator, an admin or a
 * manager is not the owner's to lift, as a Slurm user cannot release a hold an administrator placed.
 */
export const mayReleaseHold = (actor: Actor, job: { userId: string; heldBy: string | null }): boolean =>
  actor.role === "OPERATOR" ||
  actor.role === "ADMIN" ||
  job.heldBy === null ||
  job.heldBy === actor.id ||
  (actor.id !== job.userId && job.heldBy === job.userId);

/** Budget (and group) ids in the subtrees a manager manages; empty for everyone else. */
export async function managedBudgetIds(db: Db, actor: Actor): Promise<Set<string>> {
  if (actor.role !== "MANAGER") return new Set();
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH RECURSIVE sub AS (
      SELECT "treeNodeId" AS id FROM budget_manager WHERE "userId" = ${actor.id}
      UNION
      SELECT n.id FROM budget_tree_node n JOIN sub ON n."parentId" = sub.id
    )
    SELECT id FROM sub`;
  return new Set(rows.map((r) => r.id));
}
