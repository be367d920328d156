import type { TRPCRouterRecord } from "@trpc/server";
import { z } from "zod";
import { text } from "@tranche/contracts";
import { getChartData } from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const measureRouter = {
  /** SPEC §4 measures as chart series for one cluster (computed by the core's measure functions). */
  charts: authedProcedure
    .input(z.object({ cluster: text("cluster").min(1).max(200), hours: z.number().int().min(1).max(168).default(24) }))
    .query(({ ctx, input }) => getChartData(ctx.prisma, input.cluster, input.hours)),
} satisfies TRPCRouterRecord;
