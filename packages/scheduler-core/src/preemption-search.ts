import type { JobState, NodeBoard } from "./cluster-state";
import type { FairTree } from "./fair-tree";
import type { PolicyConfig } from "./types";
import type { HolderReach } from "./plan-reservations";

// What one victim search (plan-preemptions.ts) is given and answers, and the scratch space it reuses.

/** A way to start a job by preempting some running jobs. */
export interface PreemptionChoice {
  /** Nodes the job would run on; GPU indexes are chosen once the victims are vacated. */
  nodes: number[];
  victims: JobState[];
  /** 0: only unallocated victims (R3); 1: some interruptible victims (R4 or R5). */
  tier: 0 | 1;
}

export interface PreemptionContext {
  board: NodeBoard;
  tree: FairTree;
  policy: PolicyConfig;
  now: number;
  /**
   * A rule set's own limit on unallocated victims (the priority baseline: only runs the job
   * outranks); absent for fairshare, where any unallocated run may make room (R3).
   */
  mayPreempt?: ((v: JobState) => boolean) | undefined;
  /**
   * The search is for the first blocked job whose reservation (R7) is due now: besides the owed-share
   * rule it may preempt interruptible work of budgets its budget ranks ahead of by the margin, so
   * large jobs of budgets above their share do not starve.
   */
  holder: HolderReach;
}

/**
 * A victim's tier for one search: 0 unallocated (R3), 1 interruptible (R4, R5), -1 not a victim
 * (leaving, new, protected, or not eligible under the rank rule).
 */
export type TierOf = (v: JobState) => -1 | 0 | 1;

/**
 * How many qualifying nodes a search compares before it settles (node order). Keeps a search
 * O(SEARCH_WIDTH) on a cluster full of preemptible work instead of O(nodes); the choice stays
 * deterministic. The unallocated pass counts nodes that need one victim (the fewest possible, the
 * cheapest among those); the interruptible pass has its own width (COST_SEARCH_WIDTH).
 */
export const SEARCH_WIDTH = 16;

/**
 * The interruptible pass's width: nodes that can make room compared before it settles. Wider than
 * SEARCH_WIDTH because that pass ranks nodes by what their victims lose, and no node is known to be
 * unbeatable the way one victim is. 64 instead of 16 took philly-overload's preempted GPU-hours from
 * 18.8% to 17.8% of capacity at the same wall time; every node instead of 64 measured the same
 * (docs/scheduling-model.md §7).
 */
export const COST_SEARCH_WIDTH = 64;

/**
 * Per-cycle scratch space for the victim search, so a search allocates almost nothing: R4 rank
 * eligibility is memoised per victim budget for the duration of one search (stamp trick).
 */
export class SearchScratch {
  private stamp = 0;
  /**
   * After a failed search: the most GPUs the job's victims could have made available on one node
   * (single-node jobs), or whole nodes x size (multi-node jobs). A later job of the same budget that
   * needs more cannot succeed either, so the caller skips its search.
   */
  room = 0;
  // Plain arrays: one scratch is made every cycle, and a typed array costs a backing store of its own.
  private readonly seen: number[] = [];
  private readonly value: number[] = [];

  constructor(treeSize: number) {
    for (let b = 0; b < treeSize; b++) {
      this.seen.push(0);
      this.value.push(0);
    }
  }

  begin(): void {
    this.stamp++;
  }

  eligible(ctx: PreemptionContext, preemptor: number, victimBudget: number): boolean {
    if (preemptor < 0 || victimBudget < 0) return false;
    if (this.seen[victimBudget] === this.stamp) return this.value[victimBudget] === 1;
    const ok =
      ctx.tree.mayTakeShare(preemptor, victimBudget, 0, ctx.policy.preemptionMargin) ||
      (ctx.holder !== "none" &&
        ctx.tree.mayTakeSurplus(preemptor, victimBudget, 0, ctx.policy.preemptionMargin, ctx.holder === "nodes"));
    this.seen[victimBudget] = this.stamp;
    this.value[victimBudget] = ok ? 1 : 0;
    return ok;
  }
}
