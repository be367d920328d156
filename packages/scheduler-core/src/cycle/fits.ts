import type { NodeBoard } from "../cluster-state";

/**
 * Size checks fixed at the start of the lanes: does a job of g GPUs fit the READY nodes at all
 * (CLUSTER_DRAINING otherwise), and would it have fit the GPUs free before any start (ORDER)? A job
 * up to a node's size needs one node that large; a larger one g / size whole nodes.
 */
export class StartFits {
  private readonly nodeSize: number;
  private readonly maxSchedulableNode: number;
  private readonly schedulableWholeNodes: number;
  private readonly largestFreeAtStart: number;
  private readonly wholeFreeAtStart: number;

  constructor(board: NodeBoard) {
    const nodeSize = board.size;
    this.nodeSize = nodeSize;
    this.maxSchedulableNode = board.largestSchedulableNode;
    this.schedulableWholeNodes = board.schedulableWholeNodes;
    const free = freeNow(board);
    this.largestFreeAtStart = free.largest;
    this.wholeFreeAtStart = free.whole;
  }

  readyNodes(g: number): boolean {
    return g <= this.nodeSize ? g <= this.maxSchedulableNode : this.schedulableWholeNodes >= g / this.nodeSize;
  }

  freeAtStart(g: number): boolean {
    return g <= this.nodeSize ? g <= this.largestFreeAtStart : this.wholeFreeAtStart >= g / this.nodeSize;
  }
}

/** Free GPUs: the most on one node, and the whole nodes of the cluster's node size that are all free. */
export interface FreeNow {
  readonly largest: number;
  readonly whole: number;
}

/**
 * Would a job of `g` GPUs fit the free GPUs `free` of a cluster of `size`-GPU nodes, on any node?
 * Up to a node's size: one node with g free; larger: g / size whole free nodes. As hasFreePlacement
 * answers it with every node allowed, from two numbers that a run of waiting jobs keeps.
 */
export function fitsFree(g: number, size: number, free: FreeNow): boolean {
  return g > 0 && (g <= size ? free.largest >= g : size > 0 && g % size === 0 && free.whole >= g / size);
}

export function freeNow(board: NodeBoard): FreeNow {
  const size = board.size;
  let whole = 0;
  for (const node of board.buckets[size] ?? []) if (board.nodes[node]!.gpuCount === size) whole++;
  return { largest: board.largestFree(), whole };
}
