import type { JobState } from "../cluster-state";
import { requeueAfterPreemption } from "../contract";
import { plural } from "../format";
import type { Slots } from "../place-jobs";
import type { PreemptOp } from "../types";
import type { CycleSession } from "./session";

/**
 * R12 Consolidation. When allocated work preempts unallocated jobs (R3) because it fits on no node's
 * free GPUs, the victims need not wait in the queue while free GPUs sit idle elsewhere: each one is
 * moved instead, restarting at once on free GPUs that no allocated job of this cycle could use (this
 * phase runs after the allocated lanes and their retry, before the unallocated lane).
 *
 * A move is a PREEMPT with reason CONSOLIDATION plus a START of the same job that waits for its own
 * exit (afterExitOf names itself), so the old copy is gone before the new one launches and the
 * preemptor still waits for the GPUs it takes. A job is moved only when
 *  - it is unallocated and may restart (resumable, or asked to be requeued), never allocated work;
 *  - its latest start is at least `consolidationMinAge` ago (a job is moved at most once per that);
 *  - every GPU it leaves is taken by its preemptor, so no GPU of the old copy looks free to the next
 *    cycle while that copy winds down;
 *  - free GPUs for it exist now; otherwise it is preempted and requeued as R3 always did.
 */
export function noteMoveCandidates(s: CycleSession, victims: readonly { v: JobState; op: PreemptOp }[], by: Slots): void {
  for (const { v, op } of victims) if (movable(s, v) && covered(v, by)) s.moveCandidates.push({ victim: v, op, by });
}

function movable(s: CycleSession, v: JobState): boolean {
  return !v.charged && requeueAfterPreemption(v.job) && s.now - v.job.startedAt >= s.policy.consolidationMinAge;
}

function covered(v: JobState, by: Slots): boolean {
  for (const sl of v.slots) {
    const p = by.find((b) => b.node === sl.node);
    if (!p || sl.gpus.some((g) => !p.gpus.includes(g))) return false;
  }
  return true;
}

/** The phase: each candidate, in the order R3 preempted them, moves to free GPUs when there are enough. */
export function consolidate(s: CycleSession): void {
  const { board, memo, reservations } = s;
  for (const { victim: v, op } of s.moveCandidates) {
    if (board.largestFree() === 0) return;
    // Unallocated work may use reserved nodes (R7): it is preemptible whenever the holder needs them.
    const slots = memo.freePlacement(v.job.gpus, reservations.allowAll);
    if (!slots) continue;
    const from = names(s, v.slots);
    const to = names(s, slots);
    op.reasonCode = "CONSOLIDATION";
    op.sentence = `Moved to make room for allocated job ${op.byJobId}: this unallocated job restarts on ${plural(
      v.job.gpus,
      "free GPU",
    )} of ${to} as soon as it has exited here (consolidation). SIGTERM now, SIGKILL after ${op.gracePeriod}s.`;
    s.relaunch(v, slots, `Moved from ${from} to ${to} to make room for allocated job ${op.byJobId} (consolidation).`);
  }
}

function names(s: CycleSession, slots: Slots): string {
  const n = slots.map((sl) => s.board.nodes[sl.node]!.name);
  return `${n.length === 1 ? "node" : "nodes"} ${n.join(", ")}`;
}
