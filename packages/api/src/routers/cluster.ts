import type { TRPCRouterRecord } from "@trpc/server";
import { authedProcedure } from "../trpc";

export const clusterRouter = {
  /** Every cluster with its node and GPU counts by node state, and its latest scheduling cycle. */
  list: authedProcedure.query(async ({ ctx }) => {
    const clusters = await ctx.prisma.cluster.findMany({
      orderBy: { name: "asc" },
      include: { nodes: { select: { state: true, gpuCount: true } } },
    });
    const stats = await Promise.all(
      clusters.map(async (c) => {
        const now = new Date();
        const [pending, running, awaiting, cycle] = await Promise.all([
          ctx.prisma.job.aggregate({
            where: { clusterId: c.id, state: "PENDING" },
            _count: { _all: true },
            _sum: { gpus: true },
          }),
          // In use: launched jobs and leaving (STOPPING) jobs. A job started by preemption is RUNNING
          // with a start in the future until its victims exit: it holds GPUs the victims still use,
          // so it is counted apart (awaiting), never twice.
          ctx.prisma.job.aggregate({
            where: {
              clusterId: c.id,
              OR: [{ state: "STOPPING" }, { state: "RUNNING", OR: [{ startedAt: null }, { startedAt: { lte: now } }] }],
            },
            _count: { _all: true },
            _sum: { gpus: true },
          }),
          ctx.prisma.job.aggregate({
            where: { clusterId: c.id, state: "RUNNING", startedAt: { gt: now } },
            _count: { _all: true },
            _sum: { gpus: true },
          }),
          ctx.prisma.schedulingCycle.findFirst({ where: { clusterId: c.id }, orderBy: { at: "desc" }, select: { at: true } }),
        ]);
        return { pending, running, awaiting, cycle };
      }),
    );
    return clusters.map((c, i) => ({
      id: c.id,
      name: c.name,
      gpuType: c.gpuType,
      maxMinRuntimeSec: c.maxMinRuntimeSec,
      /** Squatting policy: a job flagged this long loses its protection (null: off). */
      squattingUnprotectAfterSec: c.squattingUnprotectAfterSec,
      nodeSize: c.nodes.reduce((m, n) => Math.max(m, n.gpuCount), 0),
      nodeCount: c.nodes.length,
      gpuCount: c.nodes.reduce((s, n) => s + n.gpuCount, 0),
      readyGpus: c.nodes.filter((n) => n.state === "READY").reduce((s, n) => s + n.gpuCount, 0),
      nodesByState: c.nodes.reduce<Record<string, number>>((acc, n) => ((acc[n.state] = (acc[n.state] ?? 0) + 1), acc), {}),
      pendingJobs: stats[i]!.pending._count._all,
      pendingGpus: stats[i]!.pending._sum.gpus ?? 0,
      runningJobs: stats[i]!.running._count._all,
      runningGpus: stats[i]!.running._sum.gpus ?? 0,
      /** Started jobs waiting for the jobs they preempted to exit: held GPUs, not yet in use. */
      awaitingJobs: stats[i]!.awaiting._count._all,
      awaitingGpus: stats[i]!.awaiting._sum.gpus ?? 0,
      lastCycleAt: stats[i]!.cycle?.at ?? null,
    }));
  }),
} satisfies TRPCRouterRecord;
