import type { TRPCRouterRecord } from "@trpc/server";
import { authedProcedure, publicProcedure } from "../trpc";

export const meRouter = {
  /** Who is signed in (null when nobody). */
  get: publicProcedure.query(({ ctx }) => ctx.user),
  /** Budgets the caller may charge (the job form's choices), and subtrees they manage. */
  budgets: authedProcedure.query(async ({ ctx }) => {
    const where =
      ctx.user.role === "ADMIN"
        ? { archivedAt: null, children: { none: {} } }
        : { archivedAt: null, members: { some: { userId: ctx.user.id } } };
    const rows = await ctx.prisma.budgetTreeNode.findMany({ where, select: { id: true, path: true }, orderBy: { path: "asc" } });
    return rows;
  }),
} satisfies TRPCRouterRecord;
