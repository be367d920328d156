import type { PrismaClient } from "@tranche/db";
import type { SetUserLimitInput } from "@tranche/contracts";
import { writeAudit } from "../admin/audit";
import { managesTreeNode, type Actor } from "../auth/actor";
import { badInput, forbidden } from "../errors";

/**
 * Set or remove a budget's per-user GPU limit (the core's USER_LIMIT): the managers of the budget or of
 * a group above it, and admins. Only a budget (a leaf) takes one. Audited when it changes; the next cycle
 * applies it.
 */
export async function setUserLimit(
  prisma: PrismaClient,
  actor: Actor,
  input: { budget: string; maxGpusPerUser: number | null } & SetUserLimitInput,
): Promise<{ budget: string; maxGpusPerUser: number | null }> {
  const b = await prisma.budgetTreeNode.findUnique({
    where: { path: input.budget },
    select: { id: true, path: true, archivedAt: true, maxGpusPerUser: true, _count: { select: { children: true } } },
  });
  if (!b || b.archivedAt) throw badInput(`Unknown budget '${input.budget}'`, "budget");
  if (b._count.children > 0)
    throw badInput(`'${b.path}' is a group of budgets; a per-user limit is set on a budget (a leaf)`, "budget");
  if (!(await managesTreeNode(prisma, actor, b.id)))
    throw forbidden(`You do not manage '${b.path}': only its managers or an admin may set its per-user limit`);
  // The same limit again changes nothing and writes nothing: each call once wrote an audit row, so a
  // script that PUTs its limit in a loop grew the audit log (kept whole) at its request rate.
  if (b.maxGpusPerUser === input.maxGpusPerUser) return { budget: b.path, maxGpusPerUser: b.maxGpusPerUser };
  await prisma.$transaction(async (tx) => {
    await tx.budgetTreeNode.update({ where: { id: b.id }, data: { maxGpusPerUser: input.maxGpusPerUser } });
    await writeAudit(
      tx,
      actor,
      "budget.userLimit",
      { type: "budget", id: b.id, label: b.path },
      { from: b.maxGpusPerUser, to: input.maxGpusPerUser },
    );
  });
  await prisma.$executeRaw`SELECT pg_notify('tranche_jobs', id) FROM cluster`.catch(() => undefined);
  return { budget: b.path, maxGpusPerUser: input.maxGpusPerUser };
}
