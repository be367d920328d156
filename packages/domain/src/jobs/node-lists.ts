import type { PrismaClient } from "@tranche/db";
import { nodeListProblem } from "@tranche/scheduler-core";

/** What the node-list checks read of a cluster: its name, its nodes in service and its retired nodes' names. */
export interface ClusterNodes {
  name: string;
  nodes: readonly { name: string; gpuCount: number }[];
  retired?: readonly string[];
}

/**
 * A job's node lists (`nodes`, `excludeNodes`) against its cluster, at submit and update: the core's
 * rule (scheduler-core node-constraints.ts `nodeListProblem`: known names, and room for the job's
 * shape on the nodes left to it, as placement places it), thrown as the caller's error. A retired node
 * is refused by that word first.
 */
export function checkNodeLists(
  job: { gpus: number; nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null },
  cluster: ClusterNodes,
  fail: (message: string, field: string) => Error,
): void {
  // A retired node is no node of the cluster to the core; its name says more to the person who gave it.
  for (const name of job.nodes ?? []) if (cluster.retired?.includes(name)) throw fail(`node '${name}' is retired`, "nodes");
  // Avoiding a retired node is harmless (the core reads only the names of nodes in service: a job avoids
  // it as it avoids every node it does not name), so such a name is kept and not checked further.
  const excludeNodes = job.excludeNodes?.filter((name) => !cluster.retired?.includes(name));
  const problem = nodeListProblem({ ...job, excludeNodes }, cluster);
  if (problem) throw fail(problem.message, problem.field);
}

/**
 * The cluster as the node-list checks must read it when a job names the only nodes it may use: those
 * names' states read now. The cluster itself comes from a cache of a few seconds per process
 * (submit-job.ts `cachedCluster`), and a node retired meanwhile through another process was taken as in
 * service, so the job was accepted to wait for ever. Only the named nodes are read, and only then.
 */
export async function withNamedNodesNow<C extends ClusterNodes & { id: string }>(
  prisma: PrismaClient,
  cluster: C,
  named: readonly string[],
): Promise<C> {
  if (named.length === 0) return cluster;
  const retiredNow = await prisma.node.findMany({
    where: { clusterId: cluster.id, name: { in: [...new Set(named)] }, state: "RETIRED" },
    select: { name: true },
  });
  const gone = new Set(retiredNow.map((n) => n.name).filter((name) => !cluster.retired?.includes(name)));
  if (gone.size === 0) return cluster;
  return {
    ...cluster,
    nodes: cluster.nodes.filter((n) => !gone.has(n.name)),
    retired: [...(cluster.retired ?? []), ...gone],
  };
}
