import type { PendingEntry } from "../order-pending";
import { hasFreePlacement } from "../place-jobs";
import type { PendingReasonCode } from "../types";
import { debugReserveGpus } from "./debug-reserve";
import type { StartFits } from "./fits";
import type { CycleSession } from "./session";

/**
 * Speed bookkeeping, no rule: the rest of the unallocated lane once it is closed, ordered at once and
 * explained when its reasons are first read.
 *
 * The unallocated lane is the last of the cycle, and its jobs start only on free GPUs outside the
 * debug reserve (R3, R5) or by moving other unallocated work to free GPUs (R12). Once no more GPUs
 * are free than the reserve, no job of the lane can do either: every try fails on the count before
 * any placement is searched (try-start.ts, consolidate.ts), and nothing the later jobs are checked
 * against moves again this cycle. Each job left then gets, by R10's precedence (reason-precedence.ts):
 * CLUSTER_DRAINING or its limit as before a try; NO_ENTITLEMENT when its budget has none;
 * DEBUG_RESERVE when a free placement of its size exists (it would fit, but the GPUs are the
 * reserve's); ORDER when it would have fit the GPUs free at the start of the cycle; else CAPACITY.
 *
 * On an overloaded cluster that lane holds most of the backlog (philly-overload, days 28-35: three
 * jobs in four walked a cycle), and the simulator never reads a reason. So the lane's rest is taken
 * off the queues in runs (one per budget: with no start, the fair-tree order takes a budget's jobs in
 * a row), its order written from the entries' ids, and its reasons left to a closure that runs when
 * the result's reasons are first read. The closure reads only what belongs to this cycle (its
 * queues, limits and size checks, the ratios and free placements noted here) or never changes (the
 * jobs and their admitted entries), never the board, which a kept scheduler's next cycle changes.
 * Off only in the test that checks it changes nothing (WorkingMemory.deferReasons).
 */
export function unallocatedLaneClosed(s: CycleSession): boolean {
  return s.board.totalFree() <= debugReserveGpus(s);
}

/** One budget's jobs left in the closed lane: `queue[from..]`, with its ratio and entitlement now. */
interface ClosedRun {
  queue: readonly PendingEntry[];
  from: number;
  ratio: number;
  entitled: boolean;
}

/** Takes the rest of the closed unallocated lane off the queues and orders it; its reasons wait for a reader. */
export function deferClosedLane(s: CycleSession, fits: StartFits): void {
  const { tree, board, queues, order } = s;
  const runs: ClosedRun[] = [];
  const first = order.length;
  for (let r = queues!.nextRun("UNALLOCATED"); r !== null; r = queues!.nextRun("UNALLOCATED")) {
    runs.push({ queue: r.queue, from: r.from, ratio: tree.projectedRatio(r.budget), entitled: tree.hasEntitlement(r.budget) });
    // Ordered as a run of the queue's entries: their ids are read when the result's order is (order-list.ts).
    order.pushEntries(r.queue, r.from, r.queue.length - r.from);
  }
  const count = order.length - first;
  if (count === 0) return;
  const reserve = debugReserveGpus(s);
  // Sizes with a free placement: at most the free GPUs, themselves at most the reserve. With no
  // reserve the lane closes only when nothing is free, and no job is DEBUG_RESERVE.
  const placeable: boolean[] = [];
  if (reserve > 0) {
    const free = board.totalFree();
    for (let g = 1; g <= free; g++) placeable[g] = hasFreePlacement(board, g, s.reservations.allowAll);
  }
  const largestFree = board.largestFree();
  const reserveExtras = { debugReserveGpus: reserve };
  const { reasons, limits } = s;
  s.defer(count, () => {
    let position = first;
    for (const { queue, from, ratio, entitled } of runs) {
      for (let k = from; k < queue.length; k++) {
        const e = queue[k]!;
        const job = e.job;
        const g = e.gpus;
        position++;
        if (!fits.readyNodes(g)) {
          reasons.push(e, job, "CLUSTER_DRAINING", position, ratio, largestFree, null, false);
          continue;
        }
        const limited = limits.blocked(e);
        if (limited !== null) {
          reasons.push(e, job, limited.code, position, ratio, largestFree, limited.details, false);
          continue;
        }
        const code: PendingReasonCode = !entitled
          ? "NO_ENTITLEMENT"
          : placeable[g] === true
            ? "DEBUG_RESERVE"
            : fits.freeAtStart(g)
              ? "ORDER"
              : "CAPACITY";
        reasons.push(e, job, code, position, ratio, largestFree, code === "DEBUG_RESERVE" ? reserveExtras : null, false);
      }
    }
  });
}
