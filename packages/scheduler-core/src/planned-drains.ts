import type { JobContract, JobLane, Node } from "./types";

/**
 * R8's planned maintenance (Slurm's maintenance reservation): a node with `drainAt` takes, before
 * then, only work its contracts let leave by then, and drains at it (planNodeStates), so the window
 * starts on time without breaking a contract. The one rule; placement, preemption for a job, R7's
 * reservations and the reasons all read it through here and NodeConstraints.
 */

/**
 * How long a job started now holds a node against a drain: its protection. Unallocated work has none
 * (it yields at once). A debug-lane job counts its maximum (at most debugMaxRuntime, 15 min): someone
 * watches it, and the drain would cut it at its minimum although its whole run is that short, so the
 * node gives up at most 15 minutes of its last work before the window for it.
 */
export function drainSpan(lane: JobLane, job: Pick<JobContract, "minRuntime" | "maxRuntime">): number {
  if (lane === "UNALLOCATED") return 0;
  if (lane === "DEBUG") return Math.max(job.minRuntime, job.maxRuntime ?? job.minRuntime);
  return job.minRuntime;
}

/** Whether a job holding a node for `span` from `start` would still be protected when its plan is due. */
export function crossesPlannedDrain(node: Pick<Node, "drainAt">, start: number, span: number): boolean {
  return node.drainAt != null && span > 0 && start + span > node.drainAt;
}

/** Whether the node's planned drain is due at `now`. */
export function plannedDrainDue(node: Pick<Node, "drainAt">, now: number): boolean {
  return node.drainAt != null && now >= node.drainAt;
}

/** Whether some node plans a drain after `now`: the cycle then keeps no state that ignores plans. */
export function hasPlannedDrain(nodes: readonly Pick<Node, "drainAt">[], now: number): boolean {
  for (const n of nodes) if (n.drainAt != null && n.drainAt > now) return true;
  return false;
}

/** The words of a planned drain when it is due: who planned it and why. */
export function plannedDrainText(node: Pick<Node, "drainReason" | "drainPlannedBy">): string {
  const by = node.drainPlannedBy != null && node.drainPlannedBy !== "" ? node.drainPlannedBy : "an operator";
  const why = node.drainReason != null && node.drainReason !== "" ? node.drainReason : "no reason given";
  return `Maintenance planned by ${by}: ${why}`;
}
