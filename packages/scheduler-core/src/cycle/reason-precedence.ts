import type { PendingEntry } from "../order-pending";
import { hasFreePlacement } from "../place-jobs";
import { drainSpan } from "../planned-drains";
import type { PendingReasonCode } from "../types";
import type { ReasonExtras } from "./reason-drafts";
import type { StartFits } from "./fits";
import type { CycleSession } from "./session";
import type { TryOutcome } from "./try-start";

/**
 * R10: one reason per pending job, with its numbers and one deterministic sentence (the sentences:
 * explain-pending.ts). The code is chosen by this precedence (first that applies):
 *   HELD              held by its owner or an operator (not ordered at all);
 *   INVALID_CONTRACT  can never fit this cluster, or its budget is unknown or not a leaf;
 *   DEPENDENCY_NEVER_SATISFIED  a job it depends on with `:ok` ended without success: it never
 *                     starts (not ordered; its owner cancels it);
 *   DEPENDENCY        a job it depends on has not ended (or not completed, for `:ok`) yet (not ordered);
 *   CLUSTER_DRAINING  it would fit the cluster, but not the nodes that are READY (others draining,
 *                     cordoned, in repair or down);
 *   ARRAY_LIMIT       its array already has its `%N` tasks holding GPUs;
 *   USER_LIMIT        its user's jobs in its budget hold GPUs up to the budget's per-user limit, and
 *                     this job would go over it;
 *   DEBUG_USER_CAP    debug lane, and its user already holds the debug GPUs the cap allows;
 *   NO_ENTITLEMENT    its budget has no entitlement: it runs only as unallocated work;
 *   DEBUG_RESERVE     it would fit on free GPUs it may use, but they are the GPUs kept free for
 *                     debug-lane jobs (R5);
 *   NODE_CONSTRAINT   it names the nodes it may use (or avoid), and none of those could take it now
 *                     while free GPUs of other nodes would, or none of them takes work at all;
 *   PLANNED_DRAIN     the same, but what keeps it off the nodes is their planned drain (R8): its
 *                     protection would cross it (planned-drains.ts);
 *   RESERVED_FOR      it would fit on free GPUs that are reserved (R7) for a job it would delay;
 *   ORDER             it would have fit on the GPUs free at the start of the cycle, but jobs ahead
 *                     of it in order took them;
 *   BUDGET_OVER_SHARE it could start by preempting interruptible jobs, but its budget does not rank
 *                     ahead of theirs by more than the margin (R4);
 *   DEBUG_VICTIM_COST debug lane: it could start by preempting interruptible jobs, but the ones that
 *                     would make room would lose more than debugVictimMaxCost (R5);
 *   CONTRACTS         the GPUs it needs are held by protected jobs (R4) until their protection ends;
 *   CAPACITY          otherwise: not enough GPUs (leaving jobs, unallocated-only work, sizes).
 * The first four are found when the pending jobs are admitted (admit-pending.ts); CLUSTER_DRAINING,
 * ARRAY_LIMIT and USER_LIMIT before a job is tried (lanes.ts, job-rules.ts); the rest, for a job
 * that was tried and did not start, here. A job held by a limit gets no reservation.
 */
export type BlockedCode = Exclude<
  PendingReasonCode,
  "HELD" | "INVALID_CONTRACT" | "DEPENDENCY_NEVER_SATISFIED" | "DEPENDENCY" | "CLUSTER_DRAINING" | "ARRAY_LIMIT" | "USER_LIMIT"
>;

/** The reason of an ordered job that was tried and did not start, by the precedence above. */
export function blockedReason(
  s: CycleSession,
  fits: StartFits,
  e: PendingEntry,
  overDebugCap: boolean,
  /** What the job's try in its lane said of the debug reserve (nothing moved since). */
  tried: TryOutcome,
): BlockedCode {
  const { board } = s;
  const g = e.job.gpus;
  const lane = e.lane;
  if (overDebugCap) return "DEBUG_USER_CAP";
  if (!s.tree.hasEntitlement(e.budget)) return "NO_ENTITLEMENT";
  // Before RESERVED_FOR: the free GPUs it may use (its own reservation's too) are the reserve's.
  if (blockedByDebugReserve(s, e, tried)) return "DEBUG_RESERVE";
  if (e.constrained && blockedByNodeConstraint(s, e, s.reservations.constraints.maskOf(e)))
    return blockedByNodeConstraint(s, e, s.reservations.constraints.listMaskOf(e.job)) ? "NODE_CONSTRAINT" : "PLANNED_DRAIN";
  if (
    s.reservations.length > 0 &&
    // It would fit on free GPUs, or (allocated) by preempting unallocated work, but for a reservation.
    (s.memo.freePlacement(g, s.reservations.allowAll) !== null || (lane !== "UNALLOCATED" && board.couldFit(g, 0)))
  )
    return "RESERVED_FOR";
  if (fits.freeAtStart(g)) return "ORDER";
  if (lane === "ALLOCATED" && board.couldFit(g, 1)) return "BUDGET_OVER_SHARE";
  if (lane === "DEBUG" && board.couldFit(g, 1)) return "DEBUG_VICTIM_COST";
  if (lane !== "UNALLOCATED" && board.couldFit(g, 2)) return "CONTRACTS";
  return "CAPACITY";
}

/**
 * Its node constraint is what keeps it waiting: no node it may use is READY and large enough for its
 * share of the job, or the nodes it may not use have the free GPUs it would start on (reservations
 * honoured as for any job).
 */
function blockedByNodeConstraint(s: CycleSession, e: PendingEntry, mask: Uint8Array | null): boolean {
  const { board } = s;
  if (mask === null) return false;
  const perNode = Math.min(e.job.gpus, board.size);
  let usable = false;
  for (let n = 0; n < board.count && !usable; n++)
    usable = mask[n] === 1 && board.schedulable[n]! && board.nodes[n]!.gpuCount >= perNode;
  return !usable || hasFreePlacement(board, e.job.gpus, s.reservations.allowForAnyNode(e));
}

/**
 * It would fit on the free GPUs it may use, but the debug reserve keeps it off them (R5). Its try
 * asked the reserve already, and nothing it depends on moved since: the free GPUs (nothing started)
 * and the nodes the job may use (its own reservation, made since, is on nodes nobody had reserved).
 * When the count alone kept it off, the try searched no placement: whether it fits is asked here.
 */
function blockedByDebugReserve(s: CycleSession, e: PendingEntry, tried: TryOutcome): boolean {
  if (tried === "RESERVE_PLACED") return true;
  return tried === "RESERVE_COUNT" && s.memo.freePlacement(e.job.gpus, s.reservations.allowFor(e)) !== null;
}

/** PLANNED_DRAIN's details: the node whose plan keeps it off (the one with most room), when, and the job's span. */
export function plannedDrainExtras(s: CycleSession, e: PendingEntry): ReasonExtras | null {
  const n = s.reservations.constraints.plannedNodeFor(e);
  if (n < 0) return null;
  const node = s.board.nodes[n]!;
  return { drainNode: node.name, drainAt: node.drainAt!, drainSpan: drainSpan(e.lane, e.job) };
}
