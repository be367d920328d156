import type { PrismaClient, Tx } from "@tranche/db";
import { ACTIVE_JOB_STATES } from "@tranche/contracts";
import { managesTreeNode, requireRole, type Actor } from "../auth/actor";
import { badInput, conflict, forbidden, notFound } from "../errors";
import { writeAudit } from "./audit";
import { lockTree, liveNodeByPath } from "./tree-admin";

/**
 * Who may charge a budget (members: admins, or a manager inside their subtree) and who manages a
 * subtree (managers: admins only). Each addition or removal is one transaction with one audit row.
 */

async function activeUserByEmail(tx: Tx, email: string) {
  const u = await tx.user.findUnique({ where: { email } });
  if (!u) throw badInput(`email: there is no user '${email}'; create them first`, "email");
  if (u.disabledAt) throw badInput(`email: '${email}' is disabled`, "email");
  return u;
}

async function assertMayEditMembers(tx: Tx, actor: Actor, node: { id: string; path: string }): Promise<void> {
  requireRole(actor, ["MANAGER"], "change who may charge a budget");
  if (!(await managesTreeNode(tx, actor, node.id)))
    throw forbidden(`You do not manage '${node.path}': you may change members only inside the subtree you manage`);
}

/** POST /budgets/{path}/members: the user may charge this budget. */
export async function addBudgetMember(prisma: PrismaClient, actor: Actor, path: string, email: string) {
  return prisma.$transaction((tx) => addBudgetMemberIn(tx, actor, path, email));
}

/** addBudgetMember inside the caller's transaction (a lab import's). */
export async function addBudgetMemberIn(tx: Tx, actor: Actor, path: string, email: string) {
  // The tree lock: a node cannot get children while it is getting a member (budgets are the leaves).
  await lockTree(tx);
  const node = await liveNodeByPath(tx, path);
  await assertMayEditMembers(tx, actor, node);
  const children = await tx.budgetTreeNode.count({ where: { parentId: node.id, archivedAt: null } });
  if (children > 0)
    throw conflict(`'${node.path}' is a group of ${children} nodes, not a budget; add members to one of its budgets (leaves)`);
  const user = await activeUserByEmail(tx, email);
  const existing = await tx.budgetMember.findUnique({ where: { budgetId_userId: { budgetId: node.id, userId: user.id } } });
  if (existing) throw conflict(`email: ${email} is already a member of '${node.path}'`, "email");
  await tx.budgetMember.create({ data: { budgetId: node.id, userId: user.id } });
  await writeAudit(tx, actor, "budget.member.add", { type: "budget_tree_node", id: node.id, label: node.path }, { email });
  return { budget: node.path, email };
}

export async function removeBudgetMember(prisma: PrismaClient, actor: Actor, path: string, email: string) {
  return prisma.$transaction(async (tx) => {
    const node = await liveNodeByPath(tx, path);
    await assertMayEditMembers(tx, actor, node);
    const user = await tx.user.findUnique({ where: { email } });
    const gone = user ? await tx.budgetMember.deleteMany({ where: { budgetId: node.id, userId: user.id } }) : { count: 0 };
    if (gone.count === 0) throw notFound(`${email} is not a member of '${node.path}'`);
    // Removal stops new submissions only: jobs already waiting or running go on, charged to the budget.
    // The answer counts them, so whoever removed the person is not told the budget is rid of them.
    const jobsLeft = await tx.job.count({
      where: { budgetId: node.id, userId: user!.id, state: { in: [...ACTIVE_JOB_STATES] } },
    });
    await writeAudit(
      tx,
      actor,
      "budget.member.remove",
      { type: "budget_tree_node", id: node.id, label: node.path },
      { email, jobsLeft },
    );
    return { budget: node.path, email, jobsLeft };
  });
}

/** POST /budgets/{path}/managers: the user (a manager) manages this subtree. */
export async function addTreeManager(prisma: PrismaClient, actor: Actor, path: string, email: string) {
  requireRole(actor, ["ADMIN"], "choose who manages a subtree");
  return prisma.$transaction((tx) => addTreeManagerIn(tx, actor, path, email));
}

/** addTreeManager inside the caller's transaction (a lab import's). */
export async function addTreeManagerIn(tx: Tx, actor: Actor, path: string, email: string) {
  requireRole(actor, ["ADMIN"], "choose who manages a subtree");
  const node = await liveNodeByPath(tx, path);
  const user = await activeUserByEmail(tx, email);
  if (user.role !== "MANAGER" && user.role !== "ADMIN")
    throw badInput(`email: ${email} is a ${user.role.toLowerCase()}; give them the manager role first`, "email");
  const existing = await tx.budgetManager.findUnique({
    where: { treeNodeId_userId: { treeNodeId: node.id, userId: user.id } },
  });
  if (existing) throw conflict(`email: ${email} already manages '${node.path}'`, "email");
  await tx.budgetManager.create({ data: { treeNodeId: node.id, userId: user.id } });
  await writeAudit(tx, actor, "tree.manager.add", { type: "budget_tree_node", id: node.id, label: node.path }, { email });
  return { node: node.path, email };
}

export async function removeTreeManager(prisma: PrismaClient, actor: Actor, path: string, email: string) {
  requireRole(actor, ["ADMIN"], "choose who manages a subtree");
  return prisma.$transaction(async (tx) => {
    const node = await liveNodeByPath(tx, path);
    const user = await tx.user.findUnique({ where: { email } });
    const gone = user ? await tx.budgetManager.deleteMany({ where: { treeNodeId: node.id, userId: user.id } }) : { count: 0 };
    if (gone.count === 0) throw notFound(`${email} does not manage '${node.path}'`);
    await writeAudit(tx, actor, "tree.manager.remove", { type: "budget_tree_node", id: node.id, label: node.path }, { email });
    return { node: node.path, email };
  });
}

/**
 * Members and managers of one node, for the admin page: admins see every node's, a manager only those
 * inside the subtrees they manage (the same rule as changing them). A list of names and e-mails is
 * more than the tree's member counts, which everyone sees; nobody else needs it.
 */
export async function listNodePeople(prisma: PrismaClient, actor: Actor, path: string) {
  requireRole(actor, ["MANAGER"], "see who may charge a budget");
  const node = await liveNodeByPath(prisma, path);
  if (!(await managesTreeNode(prisma, actor, node.id)))
    throw forbidden(`You do not manage '${node.path}': you may see its members and managers only inside the subtree you manage`);
  const [members, managers] = await Promise.all([
    prisma.budgetMember.findMany({ where: { budgetId: node.id }, include: { user: { select: { email: true, name: true } } } }),
    prisma.budgetManager.findMany({ where: { treeNodeId: node.id }, include: { user: { select: { email: true, name: true } } } }),
  ]);
  return {
    path: node.path,
    members: members.map((m) => m.user).sort((a, b) => a.email.localeCompare(b.email)),
    managers: managers.map((m) => m.user).sort((a, b) => a.email.localeCompare(b.email)),
  };
}
