import { nodeListProblem } from "@tranche/scheduler-core";

/** What the node-list checks read of a cluster: its name and its nodes in service. */
export interface ClusterNodes {
  name: string;
  nodes: readonly { name: string; gpuCount: number }[];
}

/**
 * A job's node lists (`nodes`, `excludeNodes`) against its cluster, at submit and update: the core's
 * rule (scheduler-core node-constraints.ts `nodeListProblem`: known names, and room for the job's
 * shape on the nodes left to it, as placement places it), thrown as the caller's error.
 */
export function checkNodeLists(
  job: { gpus: number; nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null },
  cluster: ClusterNodes,
  fail: (message: string, field: string) => Error,
): void {
  const problem = nodeListProblem(job, cluster);
  if (problem) throw fail(problem.message, problem.field);
}
