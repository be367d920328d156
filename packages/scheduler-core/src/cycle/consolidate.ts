import type { JobState } from "../cluster-state";
import { requeueAfterPreemption } from "../contract";
import { hasNodeConstraint } from "../node-constraints";
import { formatExactDuration, plural } from "../format";
import type { PendingEntry } from "../order-pending";
import type { Slots } from "../place-jobs";
import type { PreemptOp } from "../types";
import { shortsDebugReserve } from "./debug-reserve";
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
  // A job with a node constraint is never moved: its new home would have to be a node it may use.
  return (
    !hasNodeConstraint(v.job) &&
    !v.charged &&
    requeueAfterPreemption(v.job) &&
    s.now - v.job.startedAt >= s.policy.consolidationMinAge
  );
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
    // Its restart takes free GPUs as a start would: not out of the debug lane's reserve (R5).
    if (shortsDebugReserve(s, "UNALLOCATED", v.job.gpus, null)) continue;
    // Unallocated work may use reserved nodes (R7): it is preemptible whenever the holder needs them.
    const slots = memo.freePlacement(v.job.gpus, reservations.allowAll, v.budget);
    if (!slots || shortsDebugReserve(s, "UNALLOCATED", v.job.gpus, slots)) continue;
    const from = names(s, v.slots);
    const to = names(s, slots);
    op.reasonCode = "CONSOLIDATION";
    op.sentence = moveSentence(op, `allocated job ${op.byJobId}`, v.job.gpus, to);
    s.relaunch(v, slots, `Moved from ${from} to ${to} to make room for allocated job ${op.byJobId} (consolidation).`);
  }
}

function moveSentence(op: PreemptOp, forWhom: string, gpus: number, to: string): string {
  return `Moved to make room for ${forWhom}: this unallocated job restarts on ${plural(gpus, "free GPU")} of ${to} as soon as it has exited here (consolidation). Asked to stop now, stopped by force after ${formatExactDuration(op.gracePeriod)} if still running.`;
}

function names(s: CycleSession, slots: Slots): string {
  const n = slots.map((sl) => s.board.nodes[sl.node]!.name);
  return `${n.length === 1 ? "node" : "nodes"} ${n.join(", ")}`;
}

/**
 * R12 for a pending unallocated job that fits on no node (it may preempt nothing, R3): on the node
 * where the fewest GPUs must move, unallocated jobs that may be moved (see above) restart at once on
 * free GPUs of other nodes, and the job starts on the GPUs they leave plus the node's free ones,
 * waiting for their exit. Only single-node jobs, moved and moving. Returns whether it started.
 *
 * Each job size is searched at most once per state of the free GPUs (a failed search stays failed
 * until some start or stop moves them), so a long queue of jobs that fit nowhere costs one scan per size.
 */
export function tryConsolidate(s: CycleSession, e: PendingEntry, position: number, ratio: number): boolean {
  const { board } = s;
  const g = e.job.gpus;
  if (g > board.size || board.largestFree() === 0) return false;
  // Node constraints: not started by moving others (bestMove may pick any node).
  if (e.constrained) return false;
  // Moves leave as many GPUs free as before: if the debug reserve is what keeps the job out, no move
  // lets it in (without this, philly-merged with a 2% reserve moved jobs 12,689 times in a week for
  // starts the reserve then refused).
  if (shortsDebugReserve(s, e.lane, g, null)) return false;
  const failed = s.consolidationFailed;
  if (failed.version !== board.freeVersion) {
    failed.version = board.freeVersion;
    failed.sizes.clear();
  }
  if (failed.sizes.has(g)) return false;
  const plan = bestMove(s, g);
  if (!plan) {
    failed.sizes.add(g);
    return false;
  }
  const names = new Map(plan.victims.map((v) => [v, nodeNames(s, v.slots)]));
  const left: number[] = [];
  for (const v of plan.victims) {
    for (const sl of v.slots) left.push(...sl.gpus);
    const op = s.preempt(v, e.job.id, "CONSOLIDATION", ratio, "");
    op.sentence = moveSentence(op, `unallocated job ${e.job.id}`, v.job.gpus, nodeNames(s, plan.targets.get(v)!));
  }
  for (const v of plan.victims) {
    const to = plan.targets.get(v)!;
    const slots: Slots = to.map((sl) => ({ node: sl.node, gpus: board.freeIndexes(sl.node, v.job.gpus) }));
    s.relaunch(
      v,
      slots,
      `Moved from ${names.get(v)!} to ${nodeNames(s, slots)} to make room for unallocated job ${e.job.id} (consolidation).`,
    );
  }
  // The GPUs the moved jobs leave, then the node's free ones: every GPU a moved job leaves is taken.
  const gpus = [...left];
  for (const x of board.freeIndexes(plan.node, board.size)) if (gpus.length < g && !gpus.includes(x)) gpus.push(x);
  gpus.sort((a, b) => a - b);
  s.start(
    e,
    [{ node: plan.node, gpus }],
    "CONSOLIDATION",
    position,
    ratio,
    `Started by moving ${plural(plan.victims.length, "unallocated job")} to free GPUs on other nodes (consolidation).`,
  );
  return true;
}

interface MovePlan {
  node: number;
  victims: JobState[];
  /** Where each victim restarts (node only; GPU indexes are taken when it is placed). */
  targets: Map<JobState, { node: number; gpus: number[] }[]>;
}

/** The node where the fewest GPUs move (then the fewest jobs, then the first node), with a home for each mover. */
function bestMove(s: CycleSession, g: number): MovePlan | null {
  const { board } = s;
  let best: MovePlan | null = null;
  let bestMoved = Infinity;
  for (let n = 0; n < board.count; n++) {
    if (!board.schedulable[n]) continue;
    const free = board.free[n]!;
    if (free >= g) continue; // it would have fit: not this search's case
    const need = g - free;
    if (need >= bestMoved) continue;
    const movers = board.jobsOn[n]!.filter(
      (js) => !js.isNew && !js.gone && !js.stopping && js.slots.length === 1 && s.now >= js.job.startedAt && movable(s, js),
    );
    let room = 0;
    for (const m of movers) room += m.job.gpus;
    if (room < need) continue;
    // Largest first (fewest moves), never more GPUs than the job takes (each one it leaves is taken).
    movers.sort((a, b) => b.job.gpus - a.job.gpus || (a.job.id < b.job.id ? -1 : a.job.id > b.job.id ? 1 : 0));
    const tentative = new Map<number, number>();
    const victims: JobState[] = [];
    const targets = new Map<JobState, { node: number; gpus: number[] }[]>();
    let moved = 0;
    for (const m of movers) {
      if (moved >= need) break;
      if (moved + m.job.gpus > g) continue;
      const home = homeFor(s, m.job.gpus, n, tentative);
      if (home < 0) continue;
      tentative.set(home, (tentative.get(home) ?? board.free[home]!) - m.job.gpus);
      victims.push(m);
      targets.set(m, [{ node: home, gpus: [] }]);
      moved += m.job.gpus;
    }
    if (moved < need || moved >= bestMoved) continue;
    best = { node: n, victims, targets };
    bestMoved = moved;
  }
  return best;
}

/**
 * Best fit among other schedulable nodes' free GPUs as left by the moves planned so far (fewest free
 * GPUs, then the first node); -1: none. The board's free-count buckets give it in O(node size).
 */
function homeFor(s: CycleSession, gpus: number, not: number, tentative: ReadonlyMap<number, number>): number {
  const { board } = s;
  let home = -1;
  let homeFree = Infinity;
  for (const [m, f] of tentative)
    if (m !== not && f >= gpus && (f < homeFree || (f === homeFree && m < home))) {
      home = m;
      homeFree = f;
    }
  for (let k = gpus; k <= board.size && k <= homeFree; k++) {
    for (const m of board.buckets[k]!) {
      if (m === not || tentative.has(m)) continue;
      if (k < homeFree || m < home) {
        home = m;
        homeFree = k;
      }
      break;
    }
  }
  return home;
}

function nodeNames(s: CycleSession, slots: readonly { node: number }[]): string {
  const n = slots.map((sl) => s.board.nodes[sl.node]!.name);
  return `${n.length === 1 ? "node" : "nodes"} ${n.join(", ")}`;
}
