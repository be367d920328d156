import type { PrismaClient } from "@tranche/db";
import { formatPpm, type LabFile } from "@tranche/contracts";
import { requireRole, type Actor, type Role } from "../auth/actor";
import { clusterIdNamed } from "../cluster-named";

/**
 * GET /admin/export and `tranche admin export`: the lab as a lab file (importLab's format), to edit and
 * import again: every user, every live tree node by path with its managers, members and shares (on one
 * cluster when named). The root's shares are left out: it always holds the whole of every cluster.
 */
export async function exportLab(prisma: PrismaClient, actor: Actor, opts: { cluster?: string }): Promise<LabFile> {
  requireRole(actor, ["ADMIN"], "export the lab");
  const clusterId = opts.cluster ? await clusterIdNamed(prisma, opts.cluster) : undefined;
  const [users, nodes] = await Promise.all([
    prisma.user.findMany({ orderBy: { email: "asc" }, select: { email: true, name: true, role: true } }),
    prisma.budgetTreeNode.findMany({
      where: { archivedAt: null },
      orderBy: { path: "asc" },
      include: {
        managers: { include: { user: { select: { email: true } } } },
        members: { include: { user: { select: { email: true } } } },
        allocations: { where: { ppm: { gt: 0 }, ...(clusterId ? { clusterId } : {}) }, include: { cluster: true } },
      },
    }),
  ]);
  return {
    users: users.map((u) => ({ email: u.email, name: u.name, role: u.role as Role })),
    tree: nodes.map((n) => {
      const managers = n.managers.map((m) => m.user.email).sort();
      const members = n.members.map((m) => m.user.email).sort();
      const shares = n.parentId
        ? Object.fromEntries(
            n.allocations
              .sort((a, b) => a.cluster.name.localeCompare(b.cluster.name))
              .map((a) => [a.cluster.name, formatPpm(a.ppm)]),
          )
        : {};
      return {
        path: n.path,
        ...(managers.length ? { managers } : {}),
        ...(members.length ? { members } : {}),
        ...(Object.keys(shares).length ? { shares } : {}),
      };
    }),
  };
}
