import type { JobState } from "./cluster-state";
import {
  SEARCH_WIDTH,
  type PreemptionChoice,
  type PreemptionContext,
  type SearchScratch,
  type TierOf,
} from "./preemption-search";
import { compareCost, costOf, type Cost } from "./victim-cost";

/**
 * The victim search for a job larger than a node (see findPreemption): whole nodes are freed; a node
 * qualifies when everything on it may be preempted; the cheapest nodes by (tier, victim count, lost
 * GPU-seconds, node order) are taken, comparing at most SEARCH_WIDTH qualifying nodes beyond what the
 * job needs.
 */
export function preemptWholeNodes(
  ctx: PreemptionContext,
  scratch: SearchScratch,
  gpus: number,
  maxTier: 0 | 1,
  tierOf: TierOf,
  ratioOf: (v: JobState) => number,
  allowNode: (node: number) => boolean,
): PreemptionChoice | null {
  const { board, now } = ctx;
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
      const t = tierOf(v);
      if (t < 0) {
        ok = false;
        break;
      }
      lost += costOf(v, t, now);
      if (t > tier) tier = t;
      if (t === 1 && ratioOf(v) < overServed) overServed = ratioOf(v);
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
