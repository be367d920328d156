import type { NodeBoard } from "../cluster-state";
import type { Slots } from "../place-jobs";
import type { JobLane } from "../types";
import type { CycleSession } from "./session";

/**
 * R5: work outside the debug lane leaves the lane's reserve free, so a debug job starts at once
 * instead of preempting a job that has run for hours. The reserve is node-shaped: the free GPUs of
 * the ceil(reserve / node size) emptiest nodes. A count of free GPUs anywhere was not enough: spread
 * one or two to a node, they fit no 8-GPU debug job (philly-overload, 4 days, a 2% reserve counted
 * anywhere: 162 debug-lane preemptions were still needed). Unallocated work stays out too: let it
 * fill the reserve and every debug start preempts it (philly-overload, 4 days: 1.05 preemptions per
 * job instead of 0.32, docs/scheduling-model.md §7).
 */
function reserveOf(s: CycleSession, lane: JobLane): number {
  return lane === "DEBUG" ? 0 : debugReserveGpus(s);
}

/**
 * The reserve of this cluster now, whole GPUs: a share of the GPUs that may take new work. A share of
 * the healthy GPUs counted cordoned and draining nodes too, so an operator who cordoned most of a pool
 * (32 of 33 nodes) left a reserve larger than the GPUs still open, and no work outside the lane started.
 */
export function debugReserveGpus(s: CycleSession): number {
  return s.policy.debugReserve <= 0 ? 0 : Math.floor(s.policy.debugReserve * s.board.schedulableGpus);
}

/**
 * Would a start of `gpus` GPUs of `lane` leave the reserve short? Without `slots`, wherever it goes:
 * fewer free GPUs would be left than the reserve (asked before searching a placement: no placement,
 * and no move, can help then). With `slots`, also when starting there takes GPUs the reserve counts on.
 */
export function shortsDebugReserve(s: CycleSession, lane: JobLane, gpus: number, slots: Slots | null): boolean {
  const reserve = reserveOf(s, lane);
  if (reserve <= 0) return false;
  const board = s.board;
  if (board.totalFree() - gpus < reserve) return true;
  if (slots === null) return false;
  const { before, after } = roomOfEmptiest(board, Math.ceil(reserve / Math.max(1, board.size)), slots);
  return after < before && after < reserve;
}

/** Free GPUs of the m emptiest schedulable nodes, before and after `taken`'s GPUs are gone. */
function roomOfEmptiest(board: NodeBoard, m: number, taken: Slots): { before: number; after: number } {
  // One scan of the m + |taken| emptiest nodes: the first m are the m emptiest before; after, the m
  // emptiest are among the untaken ones of these (at least m, if the board has them) and the taken nodes.
  const want = m + taken.length;
  const frees: number[] = [];
  let before = 0;
  let seen = 0;
  for (let k = board.size; k > 0 && seen < want; k--) {
    for (const node of board.buckets[k]!) {
      if (seen++ < m) before += k;
      if (!taken.some((sl) => sl.node === node)) frees.push(k);
      if (seen >= want) break;
    }
  }
  for (const sl of taken) if (board.schedulable[sl.node]) frees.push(board.free[sl.node]! - sl.gpus.length);
  frees.sort((a, b) => b - a);
  let after = 0;
  for (let i = 0; i < m && i < frees.length; i++) after += frees[i]!;
  return { before, after };
}
