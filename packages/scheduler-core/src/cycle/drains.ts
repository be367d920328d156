import { compareById } from "../budget-tree";
import type { CycleSession } from "./session";

/**
 * R8 drains (after plan-drains.ts moved unhealthy nodes to DRAINING): on a DRAINING node unallocated
 * and interruptible jobs are preempted, protected ones are waited for (R4); a DRAINING node with no
 * job left goes to REPAIR and its repair hook fires.
 */
export function drainNodes(s: CycleSession): void {
  const { board, plan, now } = s;
  for (let node = 0; node < board.count; node++) {
    if (board.state[node] !== "DRAINING") continue;
    const n = board.nodes[node]!;
    const here = [...board.jobsOn[node]!].sort((a, b) => compareById(a.job, b.job));
    if (here.length === 0) {
      plan.push({
        op: "NODE_STATE",
        nodeId: n.id,
        from: "DRAINING",
        to: "REPAIR",
        reason: "DRAINED",
        sentence: `Node ${n.name} is empty after draining and goes to repair; the repair hook runs.`,
        runRepairHook: true,
      });
      board.state[node] = "REPAIR";
      continue;
    }
    for (const js of here) {
      if (js.gone || js.stopping) continue;
      if (js.charged && now < js.protectedUntil) continue; // R4: drains wait for protection to end
      s.preempt(
        js,
        null,
        "DRAIN",
        null,
        `Preempted: node ${n.name} is draining and this job is ${js.charged ? "interruptible" : "unallocated"}.`,
      );
    }
  }
}
