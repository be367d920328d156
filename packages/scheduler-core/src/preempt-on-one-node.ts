import type { JobState } from "./cluster-state";
import {
  COST_SEARCH_WIDTH,
  SEARCH_WIDTH,
  type PreemptionChoice,
  type PreemptionContext,
  type SearchScratch,
  type TierOf,
} from "./preemption-search";
import { cheapestVictims } from "./cheapest-victims";
import { compareCandidates, compareCost, compareCostFirst, costOf, gpusOn, type Candidate, type Cost } from "./victim-cost";

/**
 * The victim search for a job that fits on one node (see findPreemption).
 *
 * The unallocated pass (R3; the baselines' only pass): on each node, victims are taken in preference
 * order (largest first so there are fewest, then the least cost), then any victim that turns out
 * unnecessary is dropped again. Nodes compare by (tier, victim count, lost GPU-seconds,
 * over-servedness, GPUs left over, node order); the search stops comparing after SEARCH_WIDTH nodes
 * that need only one victim. Unallocated work is free to end at any time, so the fewest restarts go
 * first.
 *
 * The interruptible pass (R4, R5) compares what the victims lose before how many they are: byCost.
 */
export function preemptOnOneNode(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  maxTier: 0 | 1,
  tierOf: TierOf,
  ratioOf: (v: JobState) => number,
  allowNode: (node: number) => boolean,
): PreemptionChoice | null {
  const { board, now } = ctx;
  let best: { cost: Cost; victims: JobState[] } | null = null;
  let singles = 0;
  // Nodes that could offer nothing beyond `gpus - 1` are never visited: all a smaller job of this
  // budget could get from them is their bound.
  for (let offer = gpus - 1; offer > scratch.room && offer > 0; offer--)
    if (board.nodesWithBound(maxTier, offer).length > 0) scratch.room = offer;
  if (maxTier === 1) return byCost(ctx, scratch, gpus, tierOf, ratioOf, allowNode);
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
        const tier = tierOf(v);
        if (tier === -1) continue;
        const g = gpusOn(v, node);
        total += g;
        if (g < need) continue;
        const r = tier === 1 ? ratioOf(v) : 0;
        const lost = costOf(v, tier, now);
        // Preference among single victims: lower tier, lower cost (costOf: checkpoint, run age), more
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
        const tier = tierOf(v);
        if (tier === -1) continue;
        cands.push({ v, tier, g: gpusOn(v, node), r: tier === 1 ? ratioOf(v) : 0, lost: costOf(v, tier, now) });
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
  return choiceOf(ctx, best, gpus);
}

/**
 * The interruptible pass (R4, R5 victims; see findPreemption): on each node the cheapest victims that
 * make room (cheapest-victims.ts), nodes compared by what their victims cost before how many there
 * are (compareCostFirst), so three young small runs go before one old large one. Stops comparing
 * after COST_SEARCH_WIDTH nodes that can make room, visited in the same order as the unallocated pass.
 */
function byCost(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  tierOf: TierOf,
  ratioOf: (v: JobState) => number,
  allowNode: (node: number) => boolean,
): PreemptionChoice | null {
  const { board, now } = ctx;
  let best: { cost: Cost; victims: JobState[] } | null = null;
  let found = 0;
  const tiers: (-1 | 0 | 1)[] = [];
  for (let offer = gpus; offer <= board.size && found < COST_SEARCH_WIDTH; offer++) {
    const nodes = board.nodesWithBound(1, offer);
    for (let k = 0; k < nodes.length && found < COST_SEARCH_WIDTH; k++) {
      const node = nodes[k]!;
      if (board.nodes[node]!.gpuCount < gpus) continue;
      const free = board.free[node]!;
      if (free >= gpus) continue;
      const jobs = board.jobsOn[node]!;
      // Each job's tier once (R4's rank test is behind it); costs only for nodes that can make room.
      let total = free;
      // Written over, not emptied first: only the first jobs.length are read, and setting an array's
      // length is a runtime call (1% of the 60-day replay's CPU).
      for (let j = 0; j < jobs.length; j++) {
        const tier = tierOf(jobs[j]!);
        tiers[j] = tier;
        if (tier !== -1) total += gpusOn(jobs[j]!, node);
      }
      if (total < gpus) {
        if (total > scratch.room && allowNode(node)) scratch.room = total;
        continue;
      }
      if (!allowNode(node)) continue;
      const cands: Candidate[] = [];
      for (let j = 0; j < jobs.length; j++) {
        const v = jobs[j]!;
        const tier = tiers[j]!;
        if (tier === -1) continue;
        cands.push({ v, tier, g: gpusOn(v, node), r: tier === 1 ? ratioOf(v) : 0, lost: costOf(v, tier, now) });
      }
      const cheapest = cheapestVictims(cands, gpus - free);
      if (!cheapest) continue;
      found++;
      let overServed = Infinity;
      let freed = free;
      let tier = 0;
      for (const c of cheapest.set) {
        freed += c.g;
        if (c.tier === 1) {
          tier = 1;
          if (c.r < overServed) overServed = c.r;
        }
      }
      const cost: Cost = {
        tier,
        count: cheapest.cost.count,
        overServed,
        lost: cheapest.cost.interruptible,
        unallocatedLost: cheapest.cost.unallocated,
        leftover: freed - gpus,
        node,
      };
      if (!best || compareCostFirst(cost, best.cost) < 0) best = { cost, victims: cheapest.set.map((c) => c.v) };
    }
  }
  return choiceOf(ctx, best, gpus);
}

/** The chosen node's victims as a choice, or null when none was found. */
function choiceOf(
  ctx: PreemptionContext,
  best: { cost: Cost; victims: JobState[] } | null,
  gpus: number,
): PreemptionChoice | null {
  if (!best) return null;
  // Victims never share GPUs with other live jobs, but check rather than assume (R1).
  const board = ctx.board;
  if (board.free[best.cost.node]! + board.freedBy(best.cost.node, best.victims) < gpus) return null;
  return { nodes: [best.cost.node], victims: best.victims, tier: best.cost.tier as 0 | 1 };
}
