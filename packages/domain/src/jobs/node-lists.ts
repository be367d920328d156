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
  for (const field of ["nodes", "excludeNodes"] as const)
    for (const name of job[field] ?? []) if (cluster.retired?.includes(name)) throw fail(`node '${name}' is retired`, field);
  const problem = nodeListProblem(job, cluster);
  if (problem) throw fail(problem.message, problem.field);
}
