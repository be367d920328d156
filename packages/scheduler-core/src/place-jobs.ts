import type { NodeBoard } from "./cluster-state";

export type Slots = { node: number; gpus: number[] }[];

/**
 * R1 placement on free GPUs, gang (all or nothing):
 * - a job of up to a node's size goes on one node, best fit: the node with the fewest free GPUs that
 *   still fit it (ties: node order), which keeps whole nodes free for large jobs;
 * - a larger job takes gpus / size whole, fully free nodes of the cluster's node size (first in node
 *   order), since a multi-node job's ranks expect identical hosts.
 * Concrete GPU indexes are the lowest free ones. `allowNode` filters nodes (reservations, R7).
 * Returns null when the job cannot start on free GPUs now.
 */
export function findFreePlacement(board: NodeBoard, gpus: number, allowNode: (node: number) => boolean): Slots | null {
  if (gpus <= 0 || board.size === 0) return null;
  if (gpus <= board.size) {
    const node = bestFitNode(board, gpus, allowNode);
    return node < 0 ? null : [{ node, gpus: board.freeIndexes(node, gpus) }];
  }
  const nodes = wholeFreeNodes(board, gpus, allowNode);
  return nodes && nodes.map((n) => ({ node: n, gpus: board.freeIndexes(n, board.size) }));
}

/**
 * Whether findFreePlacement would place the job, without choosing its GPU indexes: the question a
 * blocked job's reason asks (baselines' RESERVED_FOR), thousands of times a cycle.
 */
export function hasFreePlacement(board: NodeBoard, gpus: number, allowNode: (node: number) => boolean): boolean {
  if (gpus <= 0 || board.size === 0) return false;
  return gpus <= board.size ? bestFitNode(board, gpus, allowNode) >= 0 : wholeFreeNodes(board, gpus, allowNode) !== null;
}

/** The allowed node with the fewest free GPUs that still fit `gpus` (ties: node order), or -1. */
function bestFitNode(board: NodeBoard, gpus: number, allowNode: (node: number) => boolean): number {
  for (let k = gpus; k <= board.size; k++) for (const node of board.buckets[k]!) if (allowNode(node)) return node;
  return -1;
}

/** The first gpus / size allowed, fully free nodes of the cluster's node size, or null. */
function wholeFreeNodes(board: NodeBoard, gpus: number, allowNode: (node: number) => boolean): number[] | null {
  if (gpus % board.size !== 0) return null;
  const need = gpus / board.size;
  const chosen: number[] = [];
  for (const node of board.buckets[board.size]!) {
    if (board.nodes[node]!.gpuCount !== board.size || !allowNode(node)) continue;
    chosen.push(node);
    if (chosen.length === need) return chosen;
  }
  return null;
}
