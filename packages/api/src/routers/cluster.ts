import type { TRPCRouterRecord } from "@trpc/server";
import { publicProcedure } from "../trpc";

export const clusterRouter = {
  /** Every cluster with its node and GPU counts by node state. */
  list: publicProcedure.query(async ({ ctx }) => {
    const clusters = await ctx.prisma.cluster.findMany({
      orderBy: { name: "asc" },
      include: { nodes: { select: { state: true, gpuCount: true } } },
    });
    return clusters.map((c) => ({
      id: c.id,
      name: c.name,
      gpuType: c.gpuType,
      maxMinRuntimeSec: c.maxMinRuntimeSec,
      nodeCount: c.nodes.length,
      gpuCount: c.nodes.reduce((s, n) => s + n.gpuCount, 0),
      readyGpus: c.nodes.filter((n) => n.state === "READY").reduce((s, n) => s + n.gpuCount, 0),
      nodesByState: c.nodes.reduce<Record<string, number>>((acc, n) => ((acc[n.state] = (acc[n.state] ?? 0) + 1), acc), {}),
    }));
  }),
} satisfies TRPCRouterRecord;
