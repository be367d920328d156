import type { NodeBoard } from "./cluster-state";

export type Slots = { node: number; gpus: number[] }[];

/**
 * R1 placement on free GPUs, gang (all or nothing):
 * - a job of up to a node's size goes on one node, best fit: the node with the fewest free GPUs that
 *   still fit it, which keeps whole nodes free for large jobs; among those, one whose running jobs are
 *   all of the job's own `budget` (when given), then node order (see bestFitNode);
 * - a larger job takes gpus / size whole, fully free nodes of the cluster's node size (first in node
 *   order), since a multi-node job's ranks expect identical hosts.
 * Concrete GPU indexes are the lowest free ones. `allowNode` filters nodes (reservations, R7).
 * Returns null when the job cannot start on free GPUs now.
 */
export function findFreePlacement(
  board: NodeBoard,
  gpus: number,
  allowNode: (node: number) => boolean,
  budget = -1,
): Slots | null {
  if (gpus <= 0 || board.size === 0) return null;
  if (gpus <= board.size) {
    const node = bestFitNode(board, gpus, allowNode, budget);
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

/**
 * The allowed node with the fewest free GPUs that still fit `gpus`, or -1. Among those, the first in
 * node order that runs only jobs of `budget` (a tree index; -1: none given), else the first.
 *
 * Why a budget's jobs are kept together: a job of a whole node can only start where every job on a
 * node leaves (R4: each victim's budget keeps its owed share without it), and a node shared by
 * several budgets' small jobs seldom qualifies, since one of them is usually at or below its share.
 * Nodes that hold one budget's work free up whole when that budget runs beyond its share. Ties only:
 * the fit stays as tight as best fit makes it. On helios-overload `search`, whose jobs are all whole
 * nodes, got 91.3% of what it was owed instead of 84.1% (docs/scheduling-model.md §7).
 */
function bestFitNode(board: NodeBoard, gpus: number, allowNode: (node: number) => boolean, budget = -1): number {
  for (let k = gpus; k <= board.size; k++) {
    let first = -1;
    for (const node of board.buckets[k]!) {
      if (!allowNode(node)) continue;
      // An empty node has no budget to match; with no budget there is nothing to prefer.
      if (budget < 0 || k === board.size) return node;
      if (first < 0) first = node;
      if (onlyBudget(board.jobsOn[node]!, budget)) return node;
    }
    if (first >= 0) return first;
  }
  return -1;
}

/** Whether every job in `jobs` (at least one) is of `budget`. */
function onlyBudget(jobs: readonly { budget: number }[], budget: number): boolean {
  if (jobs.length === 0) return false;
  for (let i = 0; i < jobs.length; i++) if (jobs[i]!.budget !== budget) return false;
  return true;
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
