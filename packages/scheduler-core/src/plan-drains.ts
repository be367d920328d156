import { formatDuration } from "./format";
import { nodeOrder, type NodeOrder } from "./node-order";
import { plannedDrainDue, plannedDrainText } from "./planned-drains";
import type { Node, NodeState, NodeStateOp, PolicyConfig } from "./types";

/**
 * R8/R9 node transitions decided at the start of a cycle, before any placement:
 * - a node whose agent has been silent past heartbeatTimeout + fenceGrace becomes DOWN (R9) — from
 *   any state but REPAIR (empty, expected to be off) and DOWN. The agent stopped its own jobs after
 *   heartbeatTimeout and killed them within fenceGrace, so its jobs are requeued only once their
 *   processes are gone. A node never heard from is silent since it entered its state;
 * - a READY or CORDONED node that reports itself unhealthy becomes DRAINING (R8);
 * - a READY or CORDONED node whose planned drain is due becomes DRAINING (R8, planned-drains.ts): the
 *   caller clears the plan when it applies the op (reason PLANNED_DRAIN), so a node back from repair
 *   is not drained again.
 * DRAINING -> REPAIR needs the node's jobs, so the cycle decides it later (drainNodes in cycle/drains.ts).
 * A REPAIR node returns to READY on a healthy report after repair: that report is an event the
 * worker applies, not something a snapshot can tell apart from "healthy but in maintenance".
 * Returns the ops in node (name, id) order and the new state of each node they move (the others keep
 * theirs: a map of every node every cycle was ~3% of a small cycle in the simulator's profile).
 */
export function planNodeStates(
  nodes: readonly Node[],
  policy: Pick<PolicyConfig, "heartbeatTimeout" | "fenceGrace">,
  now: number,
  /** The nodes' (name, id) order, when the caller has it. */
  order: NodeOrder = nodeOrder(nodes),
): { ops: NodeStateOp[]; states: Map<string, NodeState> } {
  const ops: NodeStateOp[] = [];
  const states = new Map<string, NodeState>();
  for (const n of order.sorted) {
    let state = n.state;
    const since = n.lastHeartbeatAt ?? n.stateChangedAt ?? null;
    const silentFor = since === null ? 0 : now - since;
    const limit = policy.heartbeatTimeout + policy.fenceGrace;
    if (state !== "DOWN" && state !== "REPAIR" && silentFor > limit) {
      ops.push({
        op: "NODE_STATE",
        nodeId: n.id,
        from: state,
        to: "DOWN",
        reason: "HEARTBEAT_TIMEOUT",
        sentence:
          n.lastHeartbeatAt === null
            ? `Node ${n.name} has sent no heartbeat in the ${formatDuration(silentFor)} since it became ${n.state.toLowerCase()} (timeout ${formatDuration(policy.heartbeatTimeout)} plus ${formatDuration(policy.fenceGrace)} of fence grace): it is down and its jobs are lost.`
            : `Node ${n.name} missed heartbeats for ${formatDuration(silentFor)} (timeout ${formatDuration(policy.heartbeatTimeout)} plus ${formatDuration(policy.fenceGrace)} of fence grace): it is down and its jobs are lost.`,
        runRepairHook: false,
      });
      state = "DOWN";
    } else if ((state === "READY" || state === "CORDONED") && n.health === "UNHEALTHY") {
      ops.push({
        op: "NODE_STATE",
        nodeId: n.id,
        from: state,
        to: "DRAINING",
        reason: "UNHEALTHY_REPORT",
        sentence: `Node ${n.name} reported itself unhealthy and is draining: nothing new starts there, and its jobs leave as their contracts allow.`,
        runRepairHook: false,
      });
      state = "DRAINING";
    } else if ((state === "READY" || state === "CORDONED") && plannedDrainDue(n, now)) {
      ops.push({
        op: "NODE_STATE",
        nodeId: n.id,
        from: state,
        to: "DRAINING",
        reason: "PLANNED_DRAIN",
        sentence: `${plannedDrainText(n)}. Node ${n.name} is draining: nothing new starts there, and its jobs leave as their contracts allow.`,
        runRepairHook: false,
      });
      state = "DRAINING";
    }
    if (state !== n.state) states.set(n.id, state);
  }
  return { ops, states };
}
