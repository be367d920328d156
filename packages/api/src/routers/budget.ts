import type { TRPCRouterRecord } from "@trpc/server";
import { allocationHistoryInput, setAllocationsInput, setUserLimitInput } from "@tranche/contracts";
import { getAllocationHistory, getBudgetTree, setAllocations, setUserLimit } from "@tranche/domain";
import { authedProcedure, roleProcedure } from "../trpc";
import { whatIfProcedure } from "./what-if";

export type { BudgetTreeNodeView, BudgetTreeResult } from "@tranche/domain";

export const budgetRouter = {
  /** The whole tree with allocations per cluster, usage vs entitlement, and what the caller may edit. */
  tree: authedProcedure.query(({ ctx }) => getBudgetTree(ctx.prisma, ctx.user)),
  history: authedProcedure
    .input(allocationHistoryInput.optional())
    .query(({ ctx, input }) => getAllocationHistory(ctx.prisma, input ?? {})),
  setAllocations: roleProcedure("MANAGER")
    .input(setAllocationsInput)
    .mutation(({ ctx, input }) => setAllocations(ctx.prisma, ctx.user, input)),
  /**
   * A budget's per-user GPU limit (USER_LIMIT): its managers and admins. The role is checked before the
   * input, as on REST: anyone else is refused alike, whatever they send.
   */
  setUserLimit: roleProcedure("MANAGER")
    .input(setUserLimitInput)
    .mutation(({ ctx, input }) => setUserLimit(ctx.prisma, ctx.user, input)),
  whatIf: whatIfProcedure,
} satisfies TRPCRouterRecord;
