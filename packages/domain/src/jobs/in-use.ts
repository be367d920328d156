import type { PrismaClient } from "@tranche/db";

/**
 * Which started jobs still wait for the jobs they preempted to exit. A start by preemption is RUNNING
 * with its start at the victims' grace end; until the victims (STOPPING) have left, the GPUs it holds
 * are theirs. It waits while its start is ahead, and also past it while any of its GPUs is still held
 * by a STOPPING job's open run (an agent slow to report the exit): counting both showed more GPUs in
 * use than a cluster has (301 of 256). One rule for the overview and the live queue.
 */
export async function awaitingExitIds(prisma: PrismaClient, clusterId: string, now: Date): Promise<Set<number>> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    SELECT j.id FROM job j
    WHERE j."clusterId" = ${clusterId} AND j.state = 'RUNNING'
      AND (j."startedAt" > ${now}
        OR EXISTS (
          SELECT 1 FROM run_segment s
          JOIN segment_placement p ON p."segmentId" = s.id
          JOIN segment_placement p2 ON p2."nodeId" = p."nodeId" AND p2."gpuIndexes" && p."gpuIndexes" AND p2."segmentId" <> s.id
          JOIN run_segment s2 ON s2.id = p2."segmentId" AND s2."endedAt" IS NULL
          JOIN job v ON v.id = s2."jobId" AND v.state = 'STOPPING'
          WHERE s."jobId" = j.id AND s."endedAt" IS NULL))`;
  return new Set(rows.map((r) => Number(r.id)));
}

export interface GpusInUse {
  /** launched and leaving jobs, each GPU once */
  runningJobs: number;
  runningGpus: number;
  /** starts waiting for preempted jobs to exit: GPUs promised, not yet theirs */
  awaitingJobs: number;
  awaitingGpus: number;
}

/** A cluster's GPUs in use now, never counting a GPU twice (see awaitingExitIds). */
export async function gpusInUse(prisma: PrismaClient, clusterId: string, now: Date): Promise<GpusInUse> {
  const [jobs, awaiting] = await Promise.all([
    prisma.job.findMany({
      where: { clusterId, state: { in: ["RUNNING", "STOPPING"] } },
      select: { id: true, gpus: true },
    }),
    awaitingExitIds(prisma, clusterId, now),
  ]);
  const out: GpusInUse = { runningJobs: 0, runningGpus: 0, awaitingJobs: 0, awaitingGpus: 0 };
  for (const j of jobs) {
    if (awaiting.has(j.id)) {
      out.awaitingJobs++;
      out.awaitingGpus += j.gpus;
    } else {
      out.runningJobs++;
      out.runningGpus += j.gpus;
    }
  }
  return out;
}
