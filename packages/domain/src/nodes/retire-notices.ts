import { nodesLeftProblem } from "@tranche/scheduler-core";
import type { Tx } from "@tranche/db";
import { IN_SERVICE } from "./in-service";

/** What a retirement means to the jobs waiting for the node. */
export interface RetireNotices {
  /** Waiting jobs (pending or held) whose node list names it. */
  naming: number;
  /** Of them, those its retirement leaves no node in service to run on, ever (their owners were told). */
  stranded: number;
}

/**
 * Inside the retirement's transaction, after the node left service: counts the waiting jobs that name
 * it in their node lists, and tells the owner of each one it strands (the core's nodesLeftProblem) in
 * their inbox and webhook, once: a retirement happens once, where the cycle would repeat its reason
 * every few seconds. A job array is told once, by its first task stranded.
 */
export async function noticeRetirement(
  tx: Tx,
  node: { name: string; clusterId: string; cluster: string },
  at: Date,
): Promise<RetireNotices> {
  const jobs = await tx.job.findMany({
    where: { clusterId: node.clusterId, state: { in: ["PENDING", "HELD"] }, nodeList: { has: node.name } },
    select: {
      id: true,
      name: true,
      userId: true,
      gpus: true,
      nodeList: true,
      excludeNodes: true,
      arrayJobId: true,
      user: { select: { webhookUrl: true } },
    },
    orderBy: { id: "asc" },
  });
  if (jobs.length === 0) return { naming: 0, stranded: 0 };
  const nodes = await tx.node.findMany({
    where: { clusterId: node.clusterId, ...IN_SERVICE },
    select: { name: true, gpuCount: true },
  });
  const cluster = { name: node.cluster, nodes };
  let stranded = 0;
  const told = new Set<number>();
  for (const j of jobs) {
    const problem = nodesLeftProblem({ gpus: j.gpus, nodes: j.nodeList, excludeNodes: j.excludeNodes }, cluster);
    if (problem === null) continue;
    stranded++;
    const unit = j.arrayJobId ?? j.id;
    if (told.has(unit)) continue;
    told.add(unit);
    const what = j.arrayJobId === null ? `Job ${j.name} (#${j.id})` : `A task of array ${j.name} (#${j.arrayJobId})`;
    await tx.notification.create({
      data: {
        userId: j.userId,
        jobId: unit,
        kind: "NODE_RETIRED",
        title: `${what} will never start: node ${node.name} was retired`,
        sentence: `Node ${node.name} of ${node.cluster} was taken out of service for good, and ${what.charAt(0).toLowerCase()}${what.slice(1)} can now never start as its node lists stand: ${problem}. Change them (tranche update ${unit} --nodelist with nodes in service, or --nodelist none to run on any node), or cancel it.`,
        details: { event: "NODE_RETIRED", cluster: node.cluster, node: node.name },
        createdAt: at,
        webhookState: j.user.webhookUrl !== null ? "PENDING" : null,
      },
    });
  }
  return { naming: jobs.length, stranded };
}
