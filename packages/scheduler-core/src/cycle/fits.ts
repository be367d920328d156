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
    this.largestFreeAtStart = board.largestFree();
    this.wholeFreeAtStart = board.buckets[nodeSize]?.filter((n) => board.nodes[n]!.gpuCount === nodeSize).length ?? 0;
  }

  readyNodes(g: number): boolean {
    return g <= this.nodeSize ? g <= this.maxSchedulableNode : this.schedulableWholeNodes >= g / this.nodeSize;
  }

  freeAtStart(g: number): boolean {
    return g <= this.nodeSize ? g <= this.largestFreeAtStart : this.wholeFreeAtStart >= g / this.nodeSize;
  }
}
