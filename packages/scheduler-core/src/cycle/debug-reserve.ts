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

/** The reserve of this cluster now, whole GPUs. */
export function debugReserveGpus(s: CycleSession): number {
  return s.policy.debugReserve <= 0 ? 0 : Math.floor(s.policy.debugReserve * s.tree.capacity);
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
  const m = Math.ceil(reserve / Math.max(1, board.size));
  const before = roomOfEmptiest(board, m, null);
  const after = roomOfEmptiest(board, m, slots);
  return after < before && after < reserve;
}

/** Free GPUs of the m emptiest schedulable nodes, with `taken`'s GPUs already gone. */
function roomOfEmptiest(board: NodeBoard, m: number, taken: Slots | null): number {
  const frees: number[] = [];
  // The m emptiest nodes before, plus the nodes the start touches: after it, the m emptiest are among them.
  for (let k = board.size; k > 0 && frees.length < m + (taken?.length ?? 0); k--) {
    for (const node of board.buckets[k]!) {
      if (taken?.some((sl) => sl.node === node)) continue;
      frees.push(k);
      if (frees.length >= m + (taken?.length ?? 0)) break;
    }
  }
  for (const sl of taken ?? []) if (board.schedulable[sl.node]) frees.push(board.free[sl.node]! - sl.gpus.length);
  frees.sort((a, b) => b - a);
  let room = 0;
  for (let i = 0; i < m && i < frees.length; i++) room += frees[i]!;
  return room;
}
