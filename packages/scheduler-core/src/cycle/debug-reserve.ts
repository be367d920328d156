import type { JobLane } from "../types";
import type { CycleSession } from "./session";

/**
 * R5: work outside the debug lane leaves the lane's reserve of GPUs free: would starting `gpus` GPUs
 * of `lane` on free GPUs take the cluster's free GPUs below the reserve? Unallocated work too: let it
 * fill the reserve and every debug start preempts it (philly-overload, 4 days: 1.05 preemptions per
 * job instead of 0.32, docs/scheduling-model.md §7).
 */
export function intoDebugReserve(s: CycleSession, lane: JobLane, gpus: number): boolean {
  if (lane === "DEBUG" || s.policy.debugReserve <= 0) return false;
  const reserve = Math.floor(s.policy.debugReserve * s.tree.capacity);
  return reserve > 0 && s.board.totalFree() - gpus < reserve;
}
