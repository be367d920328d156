import type { NodeBoard } from "./cluster-state";
import type { JobBase } from "./snapshot";

/** What a job says of the nodes it may use (Slurm's --nodelist / --exclude), by node name. */
export type NodeConstrained = Pick<JobBase, "nodes" | "excludeNodes">;

/** Whether the job names nodes it must run on or must avoid. */
export function hasNodeConstraint(job: NodeConstrained): boolean {
  return (job.nodes != null && job.nodes.length > 0) || (job.excludeNodes != null && job.excludeNodes.length > 0);
}

/** Whether a job may run on the node of this name. */
export function mayUseNode(job: NodeConstrained, nodeName: string): boolean {
  if (job.excludeNodes != null && job.excludeNodes.includes(nodeName)) return false;
  return job.nodes == null || job.nodes.length === 0 || job.nodes.includes(nodeName);
}

/**
 * The nodes each constrained job of one cycle may use, as flags by board index, and the ids of the
 * constrained pending jobs. The cycle's speed bookkeeping treats jobs of one size as interchangeable
 * (blocked-memo.ts, search-memo.ts, reservations.ts): a job in `ids` never shares an outcome with
 * another, and its failures teach nothing about others, since it may use fewer nodes.
 */
export class NodeConstraints {
  /** Ids of the cycle's pending jobs with a node constraint; empty for most clusters, then nothing is asked. */
  readonly ids = new Set<string>();
  private readonly masks = new Map<string, Uint8Array>();

  constructor(
    private readonly board: NodeBoard,
    pending: readonly NodeConstrained[] & readonly { id: string }[],
  ) {
    for (const job of pending) if (hasNodeConstraint(job)) this.ids.add((job as { id: string }).id);
  }

  /** Is the job of this id one with a node constraint? */
  has(id: string): boolean {
    return this.ids.size > 0 && this.ids.has(id);
  }

  /** Per board node, 1 where the job may run; null when it may run anywhere. */
  maskOf(job: NodeConstrained & { id: string }): Uint8Array | null {
    if (!hasNodeConstraint(job)) return null;
    let mask = this.masks.get(job.id);
    if (mask === undefined) {
      mask = new Uint8Array(this.board.count);
      for (let n = 0; n < this.board.count; n++) mask[n] = mayUseNode(job, this.board.nodes[n]!.name) ? 1 : 0;
      this.masks.set(job.id, mask);
    }
    return mask;
  }
}
