import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { getQueue } from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const queueRouter = {
  /** The live queue of one cluster (pending in scheduler order, running, ratios of the latest cycle). */
  get: authedProcedure
    .input(z.object({ cluster: z.string().min(1), limit: z.number().int().min(1).max(100_000).optional() }))
    .query(({ ctx, input }) => getQueue(ctx.prisma, input.cluster, { limit: input.limit })),
} satisfies TRPCRouterRecord;
