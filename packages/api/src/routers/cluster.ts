import type { TRPCRouterRecord } from "@trpc/server";
import { clusterPolicyView, gpusInUse, IN_SERVICE } from "@tranche/domain";
import { authedProcedure } from "../trpc";

export const clusterRouter = {
  /** Every cluster with its node and GPU counts by node state, and its latest scheduling cycle. */
  list: authedProcedure.query(async ({ ctx }) => {
    const clusters = await ctx.prisma.cluster.findMany({
      orderBy: { name: "asc" },
      include: { nodes: { where: IN_SERVICE, select: { state: true, gpuCount: true } } },
    });
    const stats = await Promise.all(
      clusters.map(async (c) => {
        const now = new Date();
        const [pending, inUse, cycle] = await Promise.all([
          ctx.prisma.job.aggregate({
            where: { clusterId: c.id, state: "PENDING" },
            _count: { _all: true },
            _sum: { gpus: true },
          }),
          // In use: launched and leaving jobs, each GPU once; starts waiting for exits apart.
          gpusInUse(ctx.prisma, c.id, now),
          ctx.prisma.schedulingCycle.findFirst({ where: { clusterId: c.id }, orderBy: { at: "desc" }, select: { at: true } }),
        ]);
        return { pending, inUse, cycle };
      }),
    );
    return clusters.map((c, i) => ({
      id: c.id,
      name: c.name,
      gpuType: c.gpuType,
      maxMinRuntimeSec: c.maxMinRuntimeSec,
      /** The policy as it applies: the squatting policy (null: off), the debug lane's settings with the defaults filled in. */
      policy: clusterPolicyView(c),
      nodeSize: c.nodes.reduce((m, n) => Math.max(m, n.gpuCount), 0),
      nodeCount: c.nodes.length,
      gpuCount: c.nodes.reduce((s, n) => s + n.gpuCount, 0),
      readyGpus: c.nodes.filter((n) => n.state === "READY").reduce((s, n) => s + n.gpuCount, 0),
      nodesByState: c.nodes.reduce<Record<string, number>>((acc, n) => ((acc[n.state] = (acc[n.state] ?? 0) + 1), acc), {}),
      pendingJobs: stats[i]!.pending._count._all,
      pendingGpus: stats[i]!.pending._sum.gpus ?? 0,
      runningJobs: stats[i]!.inUse.runningJobs,
      runningGpus: stats[i]!.inUse.runningGpus,
      /** Started jobs waiting for the jobs they preempted to exit: held GPUs, not yet in use. */
      awaitingJobs: stats[i]!.inUse.awaitingJobs,
      awaitingGpus: stats[i]!.inUse.awaitingGpus,
      lastCycleAt: stats[i]!.cycle?.at ?? null,
    }));
  }),
} satisfies TRPCRouterRecord;
