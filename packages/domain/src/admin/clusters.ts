import type { Prisma, PrismaClient, Tx } from "@tranche/db";
import { requireRole, type Actor } from "../auth/actor";
import { setAllocations } from "../budgets/set-allocations";
import { DomainError, badInput, conflict, notFound } from "../errors";
import { forgetCachedNames } from "../jobs/submit-job";
import { hashSecret, newEnrollmentToken } from "../runtime/credentials";
import { resolveClusterPolicy, type ClusterPolicyColumns } from "../runtime/policy";
import { clusterIdNamed } from "../cluster-named";
import { writeAudit } from "./audit";
import { giveRootWholeCluster, liveNodeByPath } from "./tree-admin";

/** POST /clusters (admins): the cluster, and the tree's root holding all of it. */
export async function createCluster(
  prisma: PrismaClient,
  actor: Actor,
  input: { name: string; gpuType: string; maxMinRuntime: number },
) {
  requireRole(actor, ["ADMIN"], "create clusters");
  const c = await prisma.$transaction(async (tx) => {
    if (await tx.cluster.findUnique({ where: { name: input.name } }))
      throw conflict(`name: a cluster '${input.name}' already exists; choose another name`, "name");
    const created = await tx.cluster.create({
      data: { name: input.name, gpuType: input.gpuType, maxMinRuntimeSec: input.maxMinRuntime },
    });
    const root = await tx.budgetTreeNode.findFirst({ where: { parentId: null, archivedAt: null }, select: { id: true } });
    if (root) await giveRootWholeCluster(tx, actor, root.id, created.id);
    await writeAudit(
      tx,
      actor,
      "cluster.create",
      { type: "cluster", id: created.id, label: created.name },
      {
        gpuType: created.gpuType,
        maxMinRuntimeSec: created.maxMinRuntimeSec,
      },
    );
    return created;
  });
  forgetCachedNames();
  return { id: c.id, name: c.name, gpuType: c.gpuType, maxMinRuntime: c.maxMinRuntimeSec };
}

/** What PATCH /clusters/{name} may change; a field left out stays as it is. */
export interface ClusterPolicyChange {
  squattingUnprotectAfter?: number | null;
  debugReservePercent?: number | null;
  debugMaxGpusPerUser?: number | null;
  debugVictimMaxGpuHours?: number | null;
}

const POLICY_FIELDS = [
  "squattingUnprotectAfter",
  "debugReservePercent",
  "debugMaxGpusPerUser",
  "debugVictimMaxGpuHours",
] as const;

/**
 * PATCH /clusters/{name} (admins): the cluster's scheduling policy. After how long a job flagged as
 * likely squatting loses its protection (null: never, the default), and the debug lane's settings
 * (R5; null: the default). The worker's next cycle reads them with the cluster
 * (resolveClusterPolicy), as do the what-if views; the core applies them.
 */
export async function updateClusterPolicy(prisma: PrismaClient, actor: Actor, name: string, input: ClusterPolicyChange) {
  requireRole(actor, ["ADMIN"], "change a cluster's policy");
  if (!POLICY_FIELDS.some((f) => input[f] !== undefined))
    throw badInput(`a cluster policy change needs at least one of ${POLICY_FIELDS.join(", ")}`);
  const data: Prisma.ClusterUpdateInput = {};
  if (input.squattingUnprotectAfter !== undefined) data.squattingUnprotectAfterSec = input.squattingUnprotectAfter;
  if (input.debugReservePercent !== undefined)
    data.debugReserve = input.debugReservePercent === null ? null : input.debugReservePercent / 100;
  if (input.debugMaxGpusPerUser !== undefined) data.debugMaxGpusPerUser = input.debugMaxGpusPerUser;
  if (input.debugVictimMaxGpuHours !== undefined)
    data.debugVictimMaxCostSec = input.debugVictimMaxGpuHours === null ? null : Math.round(input.debugVictimMaxGpuHours * 3600);
  const c = await prisma.$transaction(async (tx) => {
    const before = await tx.cluster.findUnique({ where: { name } });
    if (!before) throw notFound(`There is no cluster '${name}'`);
    const after = await tx.cluster.update({ where: { id: before.id }, data });
    // In the API's units, as they apply (a default filled in); the squatting time in seconds (…Sec).
    const was = clusterPolicyView(before);
    const now = clusterPolicyView(after);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const f of POLICY_FIELDS)
      if (input[f] !== undefined) changes[f === "squattingUnprotectAfter" ? `${f}Sec` : f] = { from: was[f], to: now[f] };
    await writeAudit(tx, actor, "cluster.policy", { type: "cluster", id: after.id, label: after.name }, changes);
    return after;
  });
  return clusterPolicyView(c);
}

/** A cluster's policy as its settings apply: the debug lane's with the defaults filled in. */
export const clusterPolicyView = (c: { name: string } & ClusterPolicyColumns) => {
  const p = resolveClusterPolicy(c);
  return {
    name: c.name,
    squattingUnprotectAfter: c.squattingUnprotectAfterSec ?? null,
    debugReservePercent: Math.round(p.debugReserve * 10_000) / 100,
    debugMaxGpusPerUser: p.debugMaxGpusPerUser,
    debugVictimMaxGpuHours: Math.round((p.debugVictimMaxCost / 3600) * 100) / 100,
  };
};

/**
 * PUT /budgets/{path}/allocation: the node's share of its parent's allocation on a cluster. The same
 * use-case as the drag UI (setAllocations: siblings at most 100%, managers inside their subtree).
 */
export async function setShare(
  prisma: PrismaClient,
  actor: Actor,
  path: string,
  input: { cluster: string; share: number; note?: string },
) {
  const { node, ppm, change } = await shareAsAllocations(prisma, path, input);
  const r = await setAllocations(prisma, actor, { ...change, ...(input.note ? { note: input.note } : {}) }).catch(refusedShare);
  return {
    path: node.path,
    cluster: input.cluster,
    share: ppm / 1_000_000,
    ppm,
    changed: r.changed.length > 0,
    siblingsSum: r.siblingsSumPpm / 1_000_000,
  };
}

/**
 * One node's share of its parent's allocation as the change of the parent's allocations that the
 * drag UI sends (setShare, and previewShare's what-if).
 */
export async function shareAsAllocations(prisma: PrismaClient | Tx, path: string, input: { cluster: string; share: number }) {
  const node = await liveNodeByPath(prisma, path);
  if (!node.parentId)
    throw badInput("share: the root always holds the whole of every cluster; set the shares of its children", "share");
  const ppm = Math.round(input.share * 1_000_000);
  return { node, ppm, change: { cluster: input.cluster, parentId: node.parentId, allocations: [{ treeNodeId: node.id, ppm }] } };
}

/** The drag UI's field is the list of allocations; for a share, the one number sent is `share`. */
export function refusedShare(e: unknown): never {
  if (e instanceof DomainError && e.field === "allocations") throw badInput(`share: ${e.message}`, "share");
  throw e;
}

/** POST /clusters/{name}/enrollment-tokens (operators): one one-time token, shown once, hashed at rest. */
export async function issueEnrollmentToken(
  prisma: PrismaClient,
  actor: Actor,
  clusterName: string,
  input: { expiresIn: number; nodeName?: string },
): Promise<{ id: string; token: string; expiresAt: string; nodeName: string | null }> {
  requireRole(actor, ["OPERATOR"], "issue enrollment tokens");
  const clusterId = await clusterIdNamed(prisma, clusterName);
  const token = newEnrollmentToken();
  const expiresAt = new Date(Date.now() + input.expiresIn * 1000);
  const row = await prisma.$transaction(async (tx) => {
    const t = await tx.enrollmentToken.create({
      data: {
        clusterId,
        tokenHash: hashSecret(token),
        createdBy: actor.id,
        expiresAt,
        nodeName: input.nodeName ?? null,
      },
    });
    await writeAudit(
      tx,
      actor,
      "enrollment-token.issue",
      { type: "cluster", id: clusterId, label: clusterName },
      {
        tokenId: t.id,
        expiresAt: expiresAt.toISOString(),
        nodeName: input.nodeName ?? null,
      },
    );
    return t;
  });
  return { id: row.id, token, expiresAt: expiresAt.toISOString(), nodeName: row.nodeName };
}

export interface EnrollmentTokenView {
  id: string;
  cluster: string;
  createdAt: string;
  createdBy: string | null;
  expiresAt: string;
  usedAt: string | null;
  /** the host that used it (or the one it is bound to, while unused) */
  nodeName: string | null;
  status: "UNUSED" | "USED" | "EXPIRED";
}

/** Enrollment tokens, newest first, with which host used each. Never the token itself. */
export async function listEnrollmentTokens(
  prisma: PrismaClient,
  actor: Actor,
  clusterName?: string,
): Promise<EnrollmentTokenView[]> {
  requireRole(actor, ["OPERATOR"], "see enrollment tokens");
  const rows = await prisma.enrollmentToken.findMany({
    where: clusterName ? { cluster: { name: clusterName } } : {},
    orderBy: { createdAt: "desc" },
    take: 200,
    include: { cluster: { select: { name: true } } },
  });
  const creators = new Map(
    (await prisma.user.findMany({ where: { id: { in: rows.map((r) => r.createdBy).filter((x): x is string => !!x) } } })).map(
      (u) => [u.id, u.email],
    ),
  );
  const now = Date.now();
  return rows.map((r) => ({
    id: r.id,
    cluster: r.cluster.name,
    createdAt: r.createdAt.toISOString(),
    createdBy: r.createdBy ? (creators.get(r.createdBy) ?? null) : null,
    expiresAt: r.expiresAt.toISOString(),
    usedAt: r.usedAt?.toISOString() ?? null,
    nodeName: r.nodeName,
    status: r.usedAt ? "USED" : r.expiresAt.getTime() <= now ? "EXPIRED" : "UNUSED",
  }));
}
