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
 * The nodes each constrained job of one cycle may use, as flags by board index, made when first asked.
 * Which jobs are constrained is their entries' flag (order-pending.ts `constrained`, a column of
 * EntryColumns), set once when a job is admitted: a cycle never scans its backlog for them (a scan
 * per cycle cost philly-overload's 60 days a quarter of their time). The cycle's speed bookkeeping
 * treats jobs of one size as interchangeable (blocked-memo.ts, search-memo.ts, reservations.ts): a
 * constrained job never shares an outcome with another, and its failures teach nothing about others,
 * since it may use fewer nodes.
 */
export class NodeConstraints {
  private readonly masks = new Map<string, Uint8Array>();

  constructor(private readonly board: NodeBoard) {}

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
