import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { LIMITS, text } from "@tranche/contracts";
import { getQueue, getQueuePage } from "@tranche/domain";
import { enterQueueRows } from "../request-gate";
import { authedProcedure } from "../trpc";
import { withinBound } from "./within-bound";

export const queueRouter = {
  /** The live queue of one cluster (pending in scheduler order, running, ratios of the latest cycle). */
  get: authedProcedure
    .input(
      z.object({ cluster: text("cluster").min(1).max(200), limit: z.number().int().min(0).max(LIMITS.queueRowsMax).optional() }),
    )
    .query(({ ctx, input }) =>
      withinBound(
        () => enterQueueRows(ctx.user.id, input.limit ?? LIMITS.queueRows),
        () => getQueue(ctx.prisma, input.cluster, { limit: input.limit }),
      ),
    ),
  /** A window of the pending list (what a virtualized view shows), optionally filtered. */
  page: authedProcedure
    .input(
      z.object({
        cluster: text("cluster").min(1).max(200),
        offset: z.number().int().min(0).max(10_000_000),
        limit: z.number().int().min(1).max(500),
        filter: text("filter").max(200).optional(),
      }),
    )
    .query(({ ctx, input }) =>
      withinBound(
        () => enterQueueRows(ctx.user.id, input.limit),
        () => getQueuePage(ctx.prisma, ctx.user, input.cluster, input),
      ),
    ),
} satisfies TRPCRouterRecord;
