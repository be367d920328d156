import type { TRPCRouterRecord } from "@trpc/server";
import { publicProcedure } from "../trpc";

export interface BudgetTreeView {
  id: string;
  name: string;
  path: string;
  /** this node's allocation per cluster name, in ppm of its parent's */
  allocationPpm: Record<string, number>;
  children: BudgetTreeView[];
}

export const budgetRouter = {
  /** The whole budget tree with per-cluster allocations, children sorted by name. */
  tree: publicProcedure.query(async ({ ctx }): Promise<BudgetTreeView | null> => {
    const nodes = await ctx.prisma.budgetTreeNode.findMany({
      where: { archivedAt: null },
      include: { allocations: { include: { cluster: { select: { name: true } } } } },
      orderBy: { name: "asc" },
    });
    const views = new Map<string, BudgetTreeView>();
    for (const n of nodes) {
      views.set(n.id, {
        id: n.id,
        name: n.name,
        path: n.path,
        allocationPpm: Object.fromEntries(n.allocations.map((a) => [a.cluster.name, a.ppm])),
        children: [],
      });
    }
    let root: BudgetTreeView | null = null;
    for (const n of nodes) {
      const view = views.get(n.id)!;
      if (n.parentId) views.get(n.parentId)?.children.push(view);
      else root = view;
    }
    return root;
  }),
} satisfies TRPCRouterRecord;
