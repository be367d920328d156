/** What the node-list checks read of a cluster: its name and its nodes in service. */
export interface ClusterNodes {
  name: string;
  nodes: readonly { name: string; gpuCount: number }[];
}

/**
 * A job's node lists (`nodes`, `excludeNodes`) against its cluster, at submit and update: every name is
 * a node of the cluster in service, and the nodes left to it can hold its shape (a job up to a node's
 * size needs one such node; a larger one gpus / size whole nodes of the cluster's node size, as the
 * scheduler places it). The shape checks of the list itself (empty, too long, a name in both) are the
 * contract's (node-list.ts).
 */
export function checkNodeLists(
  job: { gpus: number; nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null },
  cluster: ClusterNodes,
  fail: (message: string, field: string) => Error,
): void {
  const only = job.nodes ?? [];
  const exclude = job.excludeNodes ?? [];
  if (only.length === 0 && exclude.length === 0) return;
  const known = new Set(cluster.nodes.map((n) => n.name));
  for (const [field, list] of [
    ["nodes", only],
    ["excludeNodes", exclude],
  ] as const)
    for (const name of list) if (!known.has(name)) throw fail(`cluster '${cluster.name}' has no node '${name}'`, field);
  const allowed = cluster.nodes.filter((n) => (only.length === 0 || only.includes(n.name)) && !exclude.includes(n.name));
  const field = only.length > 0 ? "nodes" : "excludeNodes";
  if (allowed.length === 0) throw fail(`the node lists leave no node of cluster '${cluster.name}' to run on`, field);
  const size = cluster.nodes.reduce((m, n) => Math.max(m, n.gpuCount), 0);
  if (job.gpus <= size) {
    if (!allowed.some((n) => n.gpuCount >= job.gpus))
      throw fail(
        `${job.gpus} GPUs must fit on one node, but no node the job may use has that many (it may use ${names(allowed)})`,
        field,
      );
    return;
  }
  const need = Math.ceil(job.gpus / size);
  const whole = allowed.filter((n) => n.gpuCount === size);
  if (whole.length < need)
    throw fail(
      `${job.gpus} GPUs need ${need} whole nodes of ${size} GPUs, but the job may use only ${whole.length === 0 ? "none" : `${whole.length} (${names(whole)})`}`,
      field,
    );
}

function names(nodes: readonly { name: string }[]): string {
  const shown = nodes.slice(0, 5).map((n) => n.name);
  return nodes.length > 5 ? `${shown.join(", ")} and ${nodes.length - 5} more` : shown.join(", ");
}
