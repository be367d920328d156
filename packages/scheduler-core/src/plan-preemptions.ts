import type { JobState, NodeBoard } from "./cluster-state";
import type { FairTree } from "./fair-tree";
import type { JobLane, PolicyConfig } from "./types";

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
  holder: boolean;
}

/** GPUs a job holds on one node. */
function gpusOn(v: JobState, node: number): number {
  let n = 0;
  const slots = v.slots;
  for (let i = 0; i < slots.length; i++) if (slots[i]!.node === node) n += slots[i]!.gpus.length;
  return n;
}

/** GPU-seconds a victim loses: since its latest start (SPEC §4 preempted GPU-hours). */
export function lostGpuSeconds(v: JobState, now: number): number {
  return v.job.gpus * Math.max(0, now - v.job.startedAt);
}

/**
 * GPU-seconds of work a victim would lose now: since its last checkpoint in this run, or since its
 * latest start when it reported none. Victims that checkpointed most recently go first (R6).
 */
export function workAtRisk(v: JobState, now: number): number {
  const c = v.job.lastCheckpointAt;
  const from = c !== undefined && c !== null && c > v.job.startedAt ? c : v.job.startedAt;
  return v.job.gpus * Math.max(0, now - from);
}

/**
 * What choosing a victim costs, to compare victims of one tier: unallocated work (tier 0) by the
 * GPU-time since its latest start (the least preempted run); interruptible work (tier 1, fair share
 * and the debug lane) by the work it would lose since its last checkpoint (R6).
 */
function costOf(v: JobState, tier: number, now: number): number {
  return tier === 1 ? workAtRisk(v, now) : lostGpuSeconds(v, now);
}

interface Cost {
  tier: number;
  count: number;
  /** Lowest projected ratio among interruptible victims' budgets: higher = more over-served = preferred. */
  overServed: number;
  lost: number;
  leftover: number;
  node: number;
}

function compareCost(a: Cost, b: Cost): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.count !== b.count) return a.count - b.count;
  if (a.lost !== b.lost) return a.lost - b.lost;
  if (a.overServed !== b.overServed) return a.overServed > b.overServed ? -1 : 1;
  if (a.leftover !== b.leftover) return a.leftover - b.leftover;
  return a.node - b.node;
}

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
  private readonly seen: Int32Array;
  private readonly value: Int8Array;

  constructor(treeSize: number) {
    this.seen = new Int32Array(treeSize);
    this.value = new Int8Array(treeSize);
  }

  begin(): void {
    this.stamp++;
  }

  eligible(ctx: PreemptionContext, preemptor: number, victimBudget: number): boolean {
    if (preemptor < 0 || victimBudget < 0) return false;
    if (this.seen[victimBudget] === this.stamp) return this.value[victimBudget] === 1;
    const ok =
      ctx.tree.mayTakeShare(preemptor, victimBudget, 0, ctx.policy.preemptionMargin) ||
      (ctx.holder && ctx.tree.ranksAheadBy(preemptor, victimBudget, ctx.policy.preemptionMargin));
    this.seen[victimBudget] = this.stamp;
    this.value[victimBudget] = ok ? 1 : 0;
    return ok;
  }
}

/**
 * How many qualifying nodes a search compares before it settles (node order). Keeps a search
 * O(SEARCH_WIDTH) on a cluster full of preemptible work instead of O(nodes); the choice stays
 * deterministic and still has the fewest victims possible on a node (one), the cheapest among those.
 */
export const SEARCH_WIDTH = 16;

interface Candidate {
  v: JobState;
  tier: 0 | 1;
  g: number;
  r: number;
  lost: number;
}

function compareCandidates(a: Candidate, b: Candidate): number {
  if (a.tier !== b.tier) return a.tier - b.tier;
  if (a.g !== b.g) return b.g - a.g; // largest first: fewest victims
  if (a.lost !== b.lost) return a.lost - b.lost; // most recent checkpoint first (R6)
  if (a.tier === 1 && a.r !== b.r) return a.r > b.r ? -1 : 1; // most over-served first
  return a.v.job.id < b.v.job.id ? -1 : a.v.job.id > b.v.job.id ? 1 : 0;
}

/**
 * R3/R4/R5/R6 victim search: the cheapest set of victims that actually lets the job start, or null.
 *
 * Two passes, because unallocated victims always come first (R3): the first pass looks only at
 * unallocated work; only when no node can be freed that way does the second pass add interruptible
 * work (R4 rank rule, or any for the debug lane, R5).
 *
 * Single-node jobs: on each node, victims are taken in preference order (unallocated first, largest
 * first so there are fewest; interruptible ones from the most over-served budgets first), then any
 * victim that turns out unnecessary is dropped again. Nodes compare by (tier, victim count,
 * over-servedness, lost GPU-seconds, GPUs left over, node order).
 * Multi-node jobs: whole nodes are freed; a node qualifies when everything on it may be preempted;
 * the cheapest nodes by (tier, victim count, lost GPU-seconds, node order) are taken.
 * Both stop comparing after SEARCH_WIDTH qualifying nodes beyond what the job needs.
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

/**
 * A running job as a victim of `budget`'s job (R3/R4/R5): -1 not a victim, 0 unallocated work, 1
 * interruptible work. A function of its own, not a closure in search: tsx (keepNames) wraps every
 * named closure when it is made, once per search.
 */
function victimTier(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  v: JobState,
  maxTier: 0 | 1,
  debug: boolean,
  budget: number,
): -1 | 0 | 1 {
  if (v.gone || v.stopping || v.isNew) return -1;
  if (!v.charged) return ctx.mayPreempt === undefined || ctx.mayPreempt(v) ? 0 : -1;
  if (maxTier === 0 || ctx.now < v.protectedUntil) return -1;
  if (debug) return 1;
  if (!scratch.eligible(ctx, budget, v.budget)) return -1;
  // The owed-share rule with the victim's own GPUs (its side keeps its share), or a due holder's rank.
  if (ctx.tree.mayTakeShare(budget, v.budget, v.job.gpus, ctx.policy.preemptionMargin)) return 1;
  return ctx.holder && ctx.tree.ranksAheadBy(budget, v.budget, ctx.policy.preemptionMargin) ? 1 : -1;
}

const victimRatio = (tree: FairTree, v: JobState): number => (v.budget >= 0 ? tree.projectedRatio(v.budget) : Infinity);

function search(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  lane: JobLane,
  budget: number,
  allowNode: (node: number) => boolean,
  maxTier: 0 | 1,
): PreemptionChoice | null {
  const { board, tree, now } = ctx;
  const debug = lane === "DEBUG";

  if (gpus <= board.size) {
    let best: { cost: Cost; victims: JobState[] } | null = null;
    let singles = 0;
    // Nodes that could offer nothing beyond `gpus - 1` are never visited: all a smaller job of this
    // budget could get from them is their bound.
    for (let offer = gpus - 1; offer > scratch.room && offer > 0; offer--)
      if (board.nodesWithBound(maxTier, offer).length > 0) scratch.room = offer;
    // Visit candidate nodes by what they could offer, tightest first (best fit), then node order.
    for (let offer = gpus; offer <= board.size && singles < SEARCH_WIDTH; offer++) {
      const nodes = board.nodesWithBound(maxTier, offer);
      for (let k = 0; k < nodes.length; k++) {
        // Bounded search (speed on large clusters): once SEARCH_WIDTH nodes offer a one-victim
        // solution — the fewest possible — take the cheapest of those rather than scanning on.
        if (singles >= SEARCH_WIDTH) break;
        const node = nodes[k]!;
        if (board.nodes[node]!.gpuCount < gpus) continue;
        const free = board.free[node]!;
        if (free >= gpus) continue;
        // Cheap pass before building anything: the total, and the best single victim that suffices
        // (the usual case: one victim is always the fewest).
        const need = gpus - free;
        let total = free;
        const jobs = board.jobsOn[node]!;
        let single: JobState | null = null;
        let singleTier = 0;
        let singleR = 0;
        let singleG = 0;
        let singleLost = 0;
        for (let j = 0; j < jobs.length; j++) {
          const v = jobs[j]!;
          const tier = victimTier(ctx, scratch, v, maxTier, debug, budget);
          if (tier === -1) continue;
          const g = gpusOn(v, node);
          total += g;
          if (g < need) continue;
          const r = tier === 1 ? victimRatio(tree, v) : 0;
          const lost = costOf(v, tier, now);
          // Preference among single victims: lower tier, less work lost (latest checkpoint), more
          // over-served, best fit, id.
          const better =
            single === null ||
            tier < singleTier ||
            (tier === singleTier &&
              (lost < singleLost ||
                (lost === singleLost &&
                  (r > singleR || (r === singleR && (g < singleG || (g === singleG && v.job.id < single.job.id)))))));
          if (better) {
            single = v;
            singleTier = tier;
            singleR = r;
            singleG = g;
            singleLost = lost;
          }
        }
        if (total < gpus) {
          if (total > scratch.room && allowNode(node)) scratch.room = total;
          continue;
        }
        if (!allowNode(node)) continue;
        if (single !== null) {
          const cost: Cost = {
            tier: singleTier,
            count: 1,
            overServed: singleTier === 1 ? singleR : Infinity,
            lost: singleLost,
            leftover: free + singleG - gpus,
            node,
          };
          if (!best || compareCost(cost, best.cost) < 0) best = { cost, victims: [single] };
          singles++;
          continue;
        }
        if (best && best.cost.count === 1 && best.cost.tier <= maxTier) continue; // cannot beat one victim
        const cands: Candidate[] = [];
        for (const v of jobs) {
          const tier = victimTier(ctx, scratch, v, maxTier, debug, budget);
          if (tier === -1) continue;
          cands.push({ v, tier, g: gpusOn(v, node), r: tier === 1 ? victimRatio(tree, v) : 0, lost: costOf(v, tier, now) });
        }
        cands.sort(compareCandidates);
        const chosen: Candidate[] = [];
        let have = free;
        for (const c of cands) {
          if (have >= gpus) break;
          chosen.push(c);
          have += c.g;
        }
        // Drop victims that turn out unnecessary, least preferred first.
        for (let i = chosen.length - 1; i >= 0; i--) {
          if (have - chosen[i]!.g >= gpus) {
            have -= chosen[i]!.g;
            chosen.splice(i, 1);
          }
        }
        if (chosen.length === 0) continue;
        let overServed = Infinity;
        let lost = 0;
        let tier = 0;
        for (const c of chosen) {
          lost += c.lost;
          if (c.tier === 1) {
            tier = 1;
            if (c.r < overServed) overServed = c.r;
          }
        }
        const cost: Cost = { tier, count: chosen.length, overServed, lost, leftover: have - gpus, node };
        if (!best || compareCost(cost, best.cost) < 0) best = { cost, victims: chosen.map((c) => c.v) };
      }
    }
    if (!best) return null;
    // Victims never share GPUs with other live jobs, but check rather than assume (R1).
    if (board.free[best.cost.node]! + board.freedBy(best.cost.node, best.victims) < gpus) return null;
    return { nodes: [best.cost.node], victims: best.victims, tier: best.cost.tier as 0 | 1 };
  }

  if (gpus % board.size !== 0) return null;
  const need = gpus / board.size;
  // Keep only the `need` cheapest qualifying nodes (bounded insertion: no per-node allocation).
  const top: Cost[] = [];
  let seen = 0;
  for (const node of board.nodesWithBound(maxTier, board.size)) {
    if (seen >= need + SEARCH_WIDTH) break; // bounded, as for single-node jobs
    if (board.nodes[node]!.gpuCount !== board.size) continue;
    const jobs = board.jobsOn[node]!;
    let tier = -1;
    let ok = true;
    let overServed = Infinity;
    let lost = 0;
    // Everything on the node must go (a leaving job, whose GPUs are not free yet, disqualifies it).
    for (let j = 0; j < jobs.length; j++) {
      const v = jobs[j]!;
      const t = victimTier(ctx, scratch, v, maxTier, debug, budget);
      if (t < 0) {
        ok = false;
        break;
      }
      lost += costOf(v, t, now);
      if (t > tier) tier = t;
      if (t === 1 && victimRatio(tree, v) < overServed) overServed = victimRatio(tree, v);
    }
    if (!ok) continue;
    seen++;
    const cost: Cost = { tier, count: jobs.length, overServed, lost, leftover: 0, node };
    if (top.length === need && compareCost(cost, top[need - 1]!) >= 0) continue;
    if (!allowNode(node)) continue;
    let at = top.length;
    while (at > 0 && compareCost(cost, top[at - 1]!) < 0) at--;
    top.splice(at, 0, cost);
    if (top.length > need) top.pop();
  }
  if (top.length < need) {
    // Smaller jobs of this budget may still fit: one node's bound, or the whole nodes found here.
    let bound = 0;
    for (let offer = board.size; offer > 0 && bound === 0; offer--)
      if (board.nodesWithBound(maxTier, offer).length > 0) bound = offer;
    scratch.room = Math.max(scratch.room, top.length * board.size, bound);
    return null;
  }
  const victims: JobState[] = [];
  for (const c of top) for (const v of board.jobsOn[c.node]!) if (!victims.includes(v)) victims.push(v);
  if (victims.length === 0) return null; // enough whole free nodes: free placement handles it
  const tier = top.some((c) => c.tier === 1) ? 1 : 0;
  return { nodes: top.map((c) => c.node).sort((a, b) => a - b), victims, tier };
}
