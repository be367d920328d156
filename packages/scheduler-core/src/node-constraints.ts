import type { NodeBoard } from "./cluster-state";
import { nodeSize } from "./contract";
import { crossesPlannedDrain, drainSpan } from "./planned-drains";
import type { JobBase, JobContract } from "./snapshot";
import type { JobLane } from "./states-and-codes";

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
 * Whether none of the nodes a job may use takes new work and can hold its share of it (its GPUs, at
 * most a node's size): its lists alone keep it waiting, whatever frees up. `nodes`: the nodes that
 * take new work (a board's schedulable ones).
 */
export function noUsableNode(
  job: NodeConstrained & { gpus: number },
  nodes: readonly { name: string; gpuCount: number }[],
  size: number,
): boolean {
  const perNode = Math.min(job.gpus, size);
  return !nodes.some((n) => n.gpuCount >= perNode && mayUseNode(job, n.name));
}

/** A refusal of a job's node lists: the input field it names, and the words. */
export interface NodeListProblem {
  field: "nodes" | "excludeNodes";
  message: string;
}

/**
 * A job's node lists against its cluster's nodes in service, as submit and update check them: every
 * name is a node of the cluster, and the nodes left to it can hold its shape as placement places it (a
 * job up to a node's size on one such node, a larger one on gpus / size whole nodes of the cluster's
 * node size, contract.ts). Null when they may be kept. The lists' own shape (empty, too long, a name in
 * both) is the contract's (@tranche/contracts node-list.ts).
 */
export function nodeListProblem(
  job: { gpus: number; nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null },
  cluster: { name: string; nodes: readonly { name: string; gpuCount: number }[] },
): NodeListProblem | null {
  if (!hasNodeConstraint(job)) return null;
  const known = new Set(cluster.nodes.map((n) => n.name));
  for (const field of ["nodes", "excludeNodes"] as const)
    for (const name of job[field] ?? [])
      if (!known.has(name)) return { field, message: `cluster '${cluster.name}' has no node '${name}'` };
  const allowed = cluster.nodes.filter((n) => mayUseNode(job, n.name));
  const field = job.nodes != null && job.nodes.length > 0 ? "nodes" : "excludeNodes";
  if (allowed.length === 0) return { field, message: `the node lists leave no node of cluster '${cluster.name}' to run on` };
  const size = nodeSize(cluster.nodes);
  if (job.gpus <= size) {
    if (allowed.some((n) => n.gpuCount >= job.gpus)) return null;
    return {
      field,
      message: `${job.gpus} GPUs must fit on one node, but no node the job may use has that many (it may use ${names(allowed)})`,
    };
  }
  const need = Math.ceil(job.gpus / size);
  const whole = allowed.filter((n) => n.gpuCount === size);
  if (whole.length >= need) return null;
  return {
    field,
    message: `${job.gpus} GPUs need ${need} whole nodes of ${size} GPUs, but the job may use only ${whole.length === 0 ? "none" : `${whole.length} (${names(whole)})`}`,
  };
}

/**
 * Why a waiting job's lists leave it no node of the cluster's in service to run on, ever (a node it
 * named was retired or removed since it was submitted), in words; null while some node could still
 * take it. `nodes`: every node of the cluster in service, whatever its state (the snapshot's): a
 * draining or down node may come back, a retired one is no longer among them.
 */
export function nodesLeftProblem(
  job: NodeConstrained & { gpus: number },
  cluster: { name: string; nodes: readonly { name: string; gpuCount: number }[] },
): string | null {
  if (!hasNodeConstraint(job)) return null;
  const known = new Set(cluster.nodes.map((n) => n.name));
  const named = job.nodes ?? [];
  const gone = named.filter((n) => !known.has(n));
  if (named.length > 0 && gone.length === named.length)
    return gone.length === 1
      ? `the only node it may run on, '${gone[0]}', is no longer in service (retired or removed)`
      : `none of the nodes it may run on (${names(gone.map((name) => ({ name })))}) is in service any more (retired or removed)`;
  const kept = {
    gpus: job.gpus,
    nodes: named.filter((n) => known.has(n)),
    excludeNodes: (job.excludeNodes ?? []).filter((n) => known.has(n)),
  };
  const problem = nodeListProblem(kept, cluster);
  if (problem === null) return null;
  if (gone.length === 0) return problem.message;
  const also = gone.length === 1 ? `node '${gone[0]}' is` : `nodes ${names(gone.map((name) => ({ name })))} are`;
  return `${problem.message}; ${also} no longer in service (retired or removed)`;
}

function names(nodes: readonly { name: string }[]): string {
  const shown = nodes.slice(0, 5).map((n) => n.name);
  return nodes.length > 5 ? `${shown.join(", ")} and ${nodes.length - 5} more` : shown.join(", ");
}

/**
 * The nodes each constrained job of one cycle may use, as flags by board index, made when first asked.
 * Which jobs are constrained is their entries' flag (order-pending.ts `constrained`, a column of
 * EntryColumns), set once when a job is admitted: a cycle never scans its backlog for them (a scan
 * per cycle cost philly-overload's 60 days a quarter of their time). The cycle's speed bookkeeping
 * treats jobs of one size as interchangeable (blocked-memo.ts, search-memo.ts, reservations.ts): a
 * constrained job never shares an outcome with another, and its failures teach nothing about others,
 * since it may use fewer nodes. A job whose protection would cross a node's planned drain is
 * constrained too (planned-drains.ts): that node is off its mask while the cycle's now + its span
 * passes the plan (a cycle with plans admits its jobs afresh, run-cycle.ts, so the flag is this cycle's).
 */
export class NodeConstraints {
  private readonly masks = new Map<string, Uint8Array>();
  private readonly listMasks = new Map<string, Uint8Array>();

  private earliest: number | null = null;

  constructor(private readonly board: NodeBoard) {}

  /** The earliest planned drain still ahead (Infinity for none): one due now drains this cycle (plan-drains.ts). */
  get earliestPlan(): number {
    if (this.earliest === null) {
      let t = Infinity;
      for (const n of this.board.nodes) if (n.drainAt != null && n.drainAt > this.board.now && n.drainAt < t) t = n.drainAt;
      this.earliest = t;
    }
    return this.earliest;
  }

  /** Per board node, 1 where the job may run (its lists and the planned drains); null when anywhere. */
  maskOf(e: {
    job: NodeConstrained & { id: string } & Pick<JobContract, "minRuntime" | "maxRuntime">;
    lane: JobLane;
  }): Uint8Array | null {
    const span = drainSpan(e.lane, e.job);
    const crossed = this.crossedAny(span);
    if (!crossed) return this.listMaskOf(e.job);
    let mask = this.masks.get(e.job.id);
    if (mask === undefined) {
      const lists = this.listMaskOf(e.job);
      mask = new Uint8Array(this.board.count);
      for (let n = 0; n < this.board.count; n++)
        mask[n] = (lists === null || lists[n] === 1) && !crossesPlannedDrain(this.board.nodes[n]!, this.board.now, span) ? 1 : 0;
      this.masks.set(e.job.id, mask);
    }
    return mask;
  }

  /** Per board node, 1 where the job's node lists let it run; null when they name none. */
  listMaskOf(job: NodeConstrained & { id: string }): Uint8Array | null {
    if (!hasNodeConstraint(job)) return null;
    let mask = this.listMasks.get(job.id);
    if (mask === undefined) {
      mask = new Uint8Array(this.board.count);
      for (let n = 0; n < this.board.count; n++) mask[n] = mayUseNode(job, this.board.nodes[n]!.name) ? 1 : 0;
      this.listMasks.set(job.id, mask);
    }
    return mask;
  }

  /**
   * The node whose planned drain keeps a job of this span off it, for its reason: among the schedulable
   * nodes its lists allow and that its span crosses, the one with the most free GPUs (board order on a
   * tie); -1 when none.
   */
  plannedNodeFor(e: {
    job: NodeConstrained & { id: string } & Pick<JobContract, "minRuntime" | "maxRuntime">;
    lane: JobLane;
  }): number {
    const span = drainSpan(e.lane, e.job);
    const lists = this.listMaskOf(e.job);
    let best = -1;
    for (let n = 0; n < this.board.count; n++) {
      if (!this.board.schedulable[n] || (lists !== null && lists[n] !== 1)) continue;
      if (!crossesPlannedDrain(this.board.nodes[n]!, this.board.now, span)) continue;
      if (best < 0 || this.board.free[n]! > this.board.free[best]!) best = n;
    }
    return best;
  }

  /** Whether a job of this span started now would cross some node's planned drain. */
  crossedAny(span: number): boolean {
    return span > 0 && this.board.now + span > this.earliestPlan;
  }
}
