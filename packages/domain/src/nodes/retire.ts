import type { RetiredNodeView } from "@tranche/contracts";
import type { PrismaClient } from "@tranche/db";
import { requireRole, type Actor } from "../auth/actor";
import { writeAudit } from "../admin/audit";
import { conflict, notFound } from "../errors";
import { lockNodes } from "../runtime/lock-order";
import { forgetCachedNames } from "../jobs/submit-job";
import { changeNode } from "./node-change";
import { noticeRetirement } from "./retire-notices";

/** Jobs named in a refusal, at most this many ("and 12 more"). */
const NAMED_JOBS = 10;

/**
 * Retire a node (operators): a host taken out of service for good, or re-enrolled under a new name, left
 * its old node DOWN in every list for ever, and deleting the row would erase its jobs' placements. A
 * RETIRED node keeps its row, history and placements; the snapshot loader, capacity and the default node
 * lists leave it out, so no scheduling rule needs to know of it. Its agent is refused from then on (the
 * credential stays stored only so the refusal can say the node is retired). Only an empty node may go:
 * the jobs running or placed there would be lost with no agent to report for them. Waiting jobs that
 * name it are no reason to refuse (their owners change their lists): the answer counts them, and the
 * owners of those it leaves no node to run on are told (retire-notices.ts).
 */
export async function retireNode(
  prisma: PrismaClient,
  actor: Actor,
  /** The node by id (the nodes page) or by name (REST and the CLI). */
  which: { id: string } | { name: string },
  reason?: string,
): Promise<RetiredNodeView> {
  requireRole(actor, ["OPERATOR"], "retire nodes");
  const why = reason?.trim() || null;
  const result = await prisma.$transaction(async (tx) => {
    const node = await tx.node.findUnique({ where: which, include: { cluster: { select: { name: true } } } });
    if (!node) throw notFound(`There is no node '${"id" in which ? which.id : which.name}'`);
    if (node.state === "RETIRED") throw conflict(`${node.name} is already retired; nothing was changed`);
    // The plan applier takes this lock before it places work: a start it applies after this commit finds
    // the node no longer READY and is dropped; one applied before is seen here and refuses.
    await lockNodes(tx, { nodeIds: [node.id] });
    const jobs = await tx.$queryRaw<{ jobId: number }[]>`
      SELECT DISTINCT s."jobId" FROM segment_placement p JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL
      WHERE p."nodeId" = ${node.id} ORDER BY s."jobId"`;
    if (jobs.length > 0) {
      const ids = jobs.map((j) => j.jobId);
      const named = ids.slice(0, NAMED_JOBS).join(", ");
      const more = ids.length > NAMED_JOBS ? ` and ${ids.length - NAMED_JOBS} more` : "";
      throw conflict(
        `Cannot retire ${node.name}: ${ids.length === 1 ? "job" : "jobs"} ${named}${more} ${ids.length === 1 ? "runs" : "run"} there. Drain it first (tranche node drain ${node.name}), and retire it once it is empty.`,
      );
    }
    const now = new Date();
    await changeNode(tx, node, {
      to: "RETIRED",
      at: now,
      reason: why,
      actorId: actor.id,
      data: { state: "RETIRED", stateReason: why, stateChangedAt: now, drainIsManual: false },
    });
    await writeAudit(
      tx,
      actor,
      "node.retire",
      { type: "node", id: node.id, label: node.name },
      { cluster: node.cluster.name, from: node.state, to: "RETIRED", reason: why },
    );
    const notices = await noticeRetirement(tx, { name: node.name, clusterId: node.clusterId, cluster: node.cluster.name }, now);
    return {
      clusterId: node.clusterId,
      view: {
        node: node.name,
        cluster: node.cluster.name,
        from: node.state,
        waitingNamingIt: notices.naming,
        strandedJobs: notices.stranded,
      },
    };
  });
  // Submit and update read the cluster's nodes from a short cache: this process refuses the name at once.
  forgetCachedNames();
  // The scheduler hears at once that the cluster has fewer GPUs.
  await prisma.$executeRawUnsafe(`SELECT pg_notify('tranche_jobs', $1)`, result.clusterId).catch(() => undefined);
  return result.view;
}
