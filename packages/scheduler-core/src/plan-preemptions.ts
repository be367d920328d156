import type { JobState } from "./cluster-state";
import { preemptOnOneNode } from "./preempt-on-one-node";
import { preemptWholeNodes } from "./preempt-whole-nodes";
import type { PreemptionChoice, PreemptionContext, SearchScratch, TierOf } from "./preemption-search";
import type { JobLane } from "./types";
import { costOf } from "./victim-cost";

export { SEARCH_WIDTH, SearchScratch, type PreemptionChoice, type PreemptionContext } from "./preemption-search";
export { lostGpuSeconds, workAtRisk } from "./victim-cost";

/**
 * R3/R4/R5/R6 victim search: the cheapest set of victims that actually lets the job start, or null.
 *
 * Two passes, because unallocated victims always come first (R3): the first pass looks only at
 * unallocated work; only when no node can be freed that way does the second pass add interruptible
 * work (R4 rank rule, or any for the debug lane, R5).
 *
 * Jobs that fit on one node: preempt-on-one-node.ts; larger jobs free whole nodes:
 * preempt-whole-nodes.ts. Both stop comparing after SEARCH_WIDTH qualifying nodes beyond what the job
 * needs; victims compare as victim-cost.ts says.
 */
export function findPreemption(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  lane: JobLane | "RETRY",
  budget: number,
  allowNode: (node: number) => boolean,
): PreemptionChoice | null {
  if (lane === "UNALLOCATED" || gpus <= 0 || ctx.board.size === 0) return null;
  scratch.begin();
  scratch.room = 0;
  // "RETRY": an allocated job taking a second look, with unallocated victims only (R3).
  const first = search(ctx, scratch, gpus, lane === "RETRY" ? "ALLOCATED" : lane, budget, allowNode, 0);
  if (first || lane === "RETRY") return first;
  if (!ctx.board.couldFit(gpus, 1)) {
    // The interruptible pass cannot succeed; what it could offer a smaller job is its bound.
    for (let offer = gpus - 1; offer > scratch.room && offer > 0; offer--)
      if (ctx.board.nodesWithBound(1, offer).length > 0) scratch.room = offer;
    return null;
  }
  return search(ctx, scratch, gpus, lane, budget, allowNode, 1);
}

function search(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  lane: JobLane,
  budget: number,
  allowNode: (node: number) => boolean,
  maxTier: 0 | 1,
): PreemptionChoice | null {
  const { board, tree, now, mayPreempt } = ctx;
  const debug = lane === "DEBUG";
  const tierOf: TierOf = (v) => {
    if (v.gone || v.stopping || v.isNew) return -1;
    if (!v.charged) return mayPreempt === undefined || mayPreempt(v) ? 0 : -1;
    if (maxTier === 0 || now < v.protectedUntil) return -1;
    // R5: any budget's interruptible run, but none that would lose more than the lane may cost.
    if (debug) return costOf(v, 1, now) <= ctx.policy.debugVictimMaxCost ? 1 : -1;
    if (!scratch.eligible(ctx, budget, v.budget)) return -1;
    // The owed-share rule with the victim's own GPUs (its side keeps its share), or a due holder's rank.
    if (tree.mayTakeShare(budget, v.budget, v.job.gpus, ctx.policy.preemptionMargin)) return 1;
    return ctx.holder !== "none" &&
      tree.mayTakeSurplus(budget, v.budget, v.job.gpus, ctx.policy.preemptionMargin, ctx.holder === "nodes")
      ? 1
      : -1;
  };
  const ratioOf = (v: JobState): number => (v.budget >= 0 ? tree.projectedRatio(v.budget) : Infinity);

  if (gpus <= board.size) return preemptOnOneNode(ctx, scratch, gpus, maxTier, tierOf, ratioOf, allowNode);
  return preemptWholeNodes(ctx, scratch, gpus, maxTier, tierOf, ratioOf, allowNode);
}
