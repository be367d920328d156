import { gracePeriodFor, requeueAfterPreemption } from "../contract";
import { formatExactDuration } from "../format";
import type { CycleSession } from "./session";

/**
 * R9: every job on a DOWN node is LOST at once (requeued when resumable; a charged segment stays
 * charged). Then maxRuntime: a job past it is KILLed like a preemption (its GPUs serve starts once it
 * exits), never requeued.
 */
export function stopLostAndExpired(s: CycleSession): void {
  const { board, plan, now, policy } = s;
  for (let node = 0; node < board.count; node++) {
    if (board.state[node] !== "DOWN") continue;
    for (const js of [...board.jobsOn[node]!]) {
      if (js.gone) continue;
      const requeue = requeueAfterPreemption(js.job);
      const downIds = js.slots.filter((sl) => board.state[sl.node] === "DOWN").map((sl) => board.nodes[sl.node]!.id);
      plan.push({
        op: "LOST",
        jobId: js.job.id,
        budgetId: js.job.budgetId,
        gpus: js.job.gpus,
        nodeIds: downIds,
        requeue,
        charged: js.charged,
        sentence: `Lost: node ${downIds.map((id) => board.nodes[board.indexOf(id)!]!.name).join(", ")} is down; ${
          requeue ? "requeued at once with its original submit time" : "not requeued (not resumable)"
        }${js.charged ? "; the run so far is still charged" : ""}.`,
      });
      s.lose(js);
    }
  }
  // No job reaches its maxRuntime this cycle (most replays have none): no walk over the running jobs.
  if (s.totals.earliestMaxEnd > now) return;
  for (const js of s.jobs) {
    if (js.gone || js.stopping || js.maxEnd > now) continue;
    const grace = gracePeriodFor(js.job, js.charged, policy);
    plan.push({
      op: "KILL",
      jobId: js.job.id,
      budgetId: js.job.budgetId,
      gpus: js.job.gpus,
      gracePeriod: grace,
      graceUntil: now + grace,
      sentence: `Stopped at its maximum runtime of ${formatExactDuration(js.job.maxRuntime!)}: asked to stop now, stopped by force after ${formatExactDuration(grace)} if still running; not requeued.`,
    });
    s.killed++;
    s.kill(js, grace);
  }
}
