import type { Tx, PrismaClient } from "@tranche/db";
import { ACTIVE_JOB_STATES, LIMITS, PPM, formatPpm, type UpdateTreeNodeInput } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { badInput, conflict, notFound } from "../errors";
import { forgetCachedNames } from "../jobs/submit-job";
import { writeAudit } from "./audit";
import { followTreePathInOidcRules } from "./oidc-rules";
import { childrenRefusal } from "./parent-rule";
import { assertMayAddUnder, assertMayReshape, requireTreeShaper } from "./tree-scope";

/**
 * Editing the shape of the budget tree (admins anywhere, managers below the nodes they manage:
 * tree-scope.ts). Every change runs in one transaction that first takes one advisory lock for the whole
 * tree, so two people moving nodes at once cannot build a cycle or two siblings of the same name between
 * their checks and their writes. Budgets are the leaves; a node
 * that jobs are charged to, or that has members, cannot get children.
 */

// Any fixed number: the key of the tree's advisory lock (held until the transaction ends).
const TREE_LOCK = 7_262_001;
export async function lockTree(tx: Tx): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_advisory_xact_lock(${TREE_LOCK}::bigint)) l`;
}

export interface TreeNodeRow {
  id: string;
  name: string;
  path: string;
  parentId: string | null;
}

/** A live (not archived) node by path; `field` set: a bad input naming it, else 404 (the path was the URL). */
export async function liveNodeByPath(db: Tx | PrismaClient, path: string, field?: string): Promise<TreeNodeRow> {
  const n = await db.budgetTreeNode.findUnique({
    where: { path },
    select: { id: true, name: true, path: true, parentId: true, archivedAt: true },
  });
  if (!n || n.archivedAt) {
    const msg = `There is no tree node '${path}'`;
    throw field ? badInput(`${field}: ${msg}`, field) : notFound(msg);
  }
  return { id: n.id, name: n.name, path: n.path, parentId: n.parentId };
}

const activeJobCount = (tx: Tx, budgetId: string) => tx.job.count({ where: { budgetId, state: { in: [...ACTIVE_JOB_STATES] } } });

/**
 * A tree path is at most LIMITS.keyChars characters, the node's and every one below it (`longest`): the
 * longest budget a job, a filter or a limit can name. It also bounds the tree's depth, which every view
 * walks level by level: a chain of thousands of nested nodes overflowed the stack of everyone's Budgets page.
 */
function assertPathFits(path: string, longest: number, field: "name" | "parent"): void {
  if (longest <= LIMITS.keyChars) return;
  const shown = path.length > 60 ? `${path.slice(0, 28)}...${path.slice(-28)}` : path;
  throw badInput(
    `${field}: that makes a budget path of ${longest} characters${longest > path.length ? ` below '${shown}'` : ` ('${shown}')`}; a path is at most ${LIMITS.keyChars} characters, the longest a job can be charged to`,
    field,
  );
}

/** A node may become a parent only while no job is charged to it and nobody is its member. */
async function assertCanHaveChildren(tx: Tx, parent: TreeNodeRow, field: string): Promise<void> {
  const jobs = await activeJobCount(tx, parent.id);
  const members = await tx.budgetMember.count({ where: { budgetId: parent.id } });
  const refusal = childrenRefusal(parent.path, jobs, members);
  if (refusal !== null) throw badInput(`${field}: ${refusal}`, field);
}

async function assertNameFree(tx: Tx, parentId: string | null, name: string, exceptId?: string): Promise<void> {
  const same = await tx.budgetTreeNode.findFirst({
    where: { parentId, name, ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { path: true, archivedAt: true },
  });
  if (same)
    throw conflict(
      same.archivedAt
        ? `name: an archived node already uses '${same.path}'; choose another name`
        : `name: '${same.path}' already exists; siblings need different names`,
      "name",
    );
}

/** POST /budgets: a new node under `parent` (or the root of an empty tree), with one audit row. */
export async function createTreeNode(prisma: PrismaClient, actor: Actor, input: { parent?: string; name: string }) {
  const node = await prisma.$transaction((tx) => createTreeNodeIn(tx, actor, input));
  forgetCachedNames();
  return { id: node.id, name: node.name, path: node.path, parentId: node.parentId };
}

/** createTreeNode inside the caller's transaction (a lab import's); the caller forgets cached names after. */
export async function createTreeNodeIn(tx: Tx, actor: Actor, input: { parent?: string; name: string }) {
  requireTreeShaper(actor);
  await lockTree(tx);
  // Under the lock: the subtree is checked against the paths as they are when the node is added.
  await assertMayAddUnder(tx, actor, input.parent);
  let parent: TreeNodeRow | null = null;
  if (input.parent) {
    parent = await liveNodeByPath(tx, input.parent, "parent");
    await assertCanHaveChildren(tx, parent, "parent");
  } else {
    const root = await tx.budgetTreeNode.findFirst({ where: { parentId: null, archivedAt: null }, select: { path: true } });
    if (root) throw badInput(`parent is required: the tree already has its root '${root.path}'`, "parent");
  }
  await assertNameFree(tx, parent?.id ?? null, input.name);
  const path = parent ? `${parent.path}/${input.name}` : input.name;
  assertPathFits(path, path.length, "name");
  const created = await tx.budgetTreeNode.create({ data: { name: input.name, path, parentId: parent?.id ?? null } });
  // The root always holds all of every cluster (the core reads it as 100%); record it so views agree.
  if (!parent) {
    const clusters = await tx.cluster.findMany({ select: { id: true } });
    for (const c of clusters) await giveRootWholeCluster(tx, actor, created.id, c.id);
  }
  await writeAudit(
    tx,
    actor,
    "tree.create",
    { type: "budget_tree_node", id: created.id, label: path },
    { parent: parent?.path ?? null },
  );
  return created;
}

export async function giveRootWholeCluster(tx: Tx, actor: Actor | null, rootId: string, clusterId: string): Promise<void> {
  await tx.allocation.create({ data: { treeNodeId: rootId, clusterId, ppm: PPM } });
  await tx.allocationChange.create({
    data: {
      treeNodeId: rootId,
      clusterId,
      fromPpm: 0,
      toPpm: PPM,
      actorId: actor?.id ?? null,
      note: "the root holds the whole cluster",
    },
  });
}

/** PATCH /budgets/{path}: rename and/or move a node with its whole subtree (paths follow). */
export async function updateTreeNode(prisma: PrismaClient, actor: Actor, path: string, input: UpdateTreeNodeInput) {
  requireTreeShaper(actor);
  const result = await prisma.$transaction(async (tx) => {
    await lockTree(tx);
    // Both ends of a move inside the actor's subtree: nothing moves out of it, nothing foreign in.
    await assertMayReshape(tx, actor, path);
    if (input.parent !== undefined) await assertMayAddUnder(tx, actor, input.parent);
    const node = await liveNodeByPath(tx, path);
    let parent: TreeNodeRow | null = node.parentId
      ? await tx.budgetTreeNode.findUniqueOrThrow({
          where: { id: node.parentId },
          select: { id: true, name: true, path: true, parentId: true },
        })
      : null;
    const moving = input.parent !== undefined && input.parent !== parent?.path;
    if (moving) {
      if (!node.parentId) throw badInput("parent: the root cannot move; it is the top of the tree", "parent");
      const target = await liveNodeByPath(tx, input.parent!, "parent");
      if (target.id === node.id || target.path.startsWith(node.path + "/"))
        throw badInput(`parent: '${target.path}' is inside '${node.path}'; a node cannot move under itself`, "parent");
      await assertCanHaveChildren(tx, target, "parent");
      await assertSharesFit(tx, node, target);
      parent = target;
    }
    const name = input.name ?? node.name;
    const newPath = parent ? `${parent.path}/${name}` : name;
    if (newPath === node.path) throw badInput(`name: '${node.path}' already has that name and parent; nothing to change`, "name");
    await assertNameFree(tx, parent?.id ?? null, name, node.id);
    // The subtree's longest path moves with it.
    const [deepest] = await tx.$queryRaw<{ chars: number | null }[]>`
      SELECT max(length(path))::int AS chars FROM budget_tree_node WHERE starts_with(path, ${node.path + "/"})`;
    assertPathFits(newPath, newPath.length + Math.max(0, (deepest?.chars ?? 0) - node.path.length), moving ? "parent" : "name");
    // Every path in the subtree starts with the node's path: rewrite that prefix in one statement.
    await tx.$executeRaw`UPDATE budget_tree_node SET path = ${newPath} || substr(path, ${node.path.length + 1})
      WHERE path = ${node.path} OR starts_with(path, ${node.path + "/"})`;
    await followTreePathInOidcRules(tx, node.path, newPath);
    await tx.budgetTreeNode.update({ where: { id: node.id }, data: { name, parentId: parent?.id ?? null } });
    const action = moving ? "tree.move" : "tree.rename";
    await writeAudit(
      tx,
      actor,
      action,
      { type: "budget_tree_node", id: node.id, label: newPath },
      { from: node.path, to: newPath },
    );
    return { id: node.id, name, path: newPath, parentId: parent?.id ?? null };
  });
  forgetCachedNames();
  return result;
}

/** A moved node keeps its share of its (new) parent: the new siblings' sum must still fit in 100%. */
async function assertSharesFit(tx: Tx, node: TreeNodeRow, target: TreeNodeRow): Promise<void> {
  const own = await tx.allocation.findMany({ where: { treeNodeId: node.id, ppm: { gt: 0 } }, include: { cluster: true } });
  for (const a of own) {
    const siblings = await tx.allocation.aggregate({
      where: { clusterId: a.clusterId, treeNode: { parentId: target.id, archivedAt: null } },
      _sum: { ppm: true },
    });
    const sum = (siblings._sum.ppm ?? 0) + a.ppm;
    if (sum > PPM)
      throw badInput(
        `parent: under '${target.path}' the shares on ${a.cluster.name} would sum to ${formatPpm(sum)}; lower '${node.path}''s share (${formatPpm(a.ppm)}) first`,
        "parent",
      );
  }
}

/** DELETE /budgets/{path}: archive a node with no live children and no pending or running jobs. */
export async function archiveTreeNode(prisma: PrismaClient, actor: Actor, path: string) {
  requireTreeShaper(actor);
  const result = await prisma.$transaction(async (tx) => {
    await lockTree(tx);
    await assertMayReshape(tx, actor, path);
    const node = await liveNodeByPath(tx, path);
    const children = await tx.budgetTreeNode.count({ where: { parentId: node.id, archivedAt: null } });
    if (children > 0)
      throw conflict(`'${node.path}' has ${children} child node${children === 1 ? "" : "s"}; archive or move them first`);
    const jobs = await activeJobCount(tx, node.id);
    if (jobs > 0)
      throw conflict(
        `'${node.path}' has ${jobs} pending or running job${jobs === 1 ? "" : "s"}; they must end (or be cancelled) before it is archived`,
      );
    const at = new Date();
    await tx.budgetTreeNode.update({ where: { id: node.id }, data: { archivedAt: at } });
    await writeAudit(tx, actor, "tree.archive", { type: "budget_tree_node", id: node.id, label: node.path });
    return { id: node.id, path: node.path, archivedAt: at.toISOString() };
  });
  forgetCachedNames();
  return result;
}
