import type { Candidate } from "./victim-cost";

/** What a set of victims on one node costs, compared in this order (R6, the interruptible pass). */
export interface SetCost {
  /** Summed R6 cost of the interruptible victims: the work fair share or the debug lane ends. */
  interruptible: number;
  count: number;
  /** Summed cost of the unallocated victims (R3: they go first, whatever they cost). */
  unallocated: number;
}

function less(a: SetCost, b: SetCost): boolean {
  if (a.interruptible !== b.interruptible) return a.interruptible < b.interruptible;
  if (a.count !== b.count) return a.count < b.count;
  return a.unallocated < b.unallocated;
}

/**
 * The victims among `cands` (one node's, in board order) that free at least `need` GPUs at the least
 * cost: the least interruptible cost, then the fewest victims, then the least unallocated cost. Exact,
 * by a knapsack over GPUs freed (capped at `need`): a node holds a handful of jobs and `need` is at
 * most its size, so this is a few dozen steps. Why not greedy: three young one-GPU runs cost less than
 * one old four-GPU run, and which subset is cheapest is not a matter of order. Null when all of them
 * together free too little.
 */
export function cheapestVictims(cands: readonly Candidate[], need: number): { set: Candidate[]; cost: SetCost } | null {
  if (need <= 0) return null;
  // best[x]: the cheapest set found so far that frees x GPUs (need or more counted as need).
  const best: ({ cost: SetCost; items: number[] } | null)[] = new Array(need + 1).fill(null);
  best[0] = { cost: { interruptible: 0, count: 0, unallocated: 0 }, items: [] };
  for (let i = 0; i < cands.length; i++) {
    const c = cands[i]!;
    for (let x = need - 1; x >= 0; x--) {
      const from = best[x];
      if (!from) continue;
      const y = Math.min(need, x + c.g);
      const cost: SetCost = {
        interruptible: from.cost.interruptible + (c.tier === 1 ? c.lost : 0),
        count: from.cost.count + 1,
        unallocated: from.cost.unallocated + (c.tier === 0 ? c.lost : 0),
      };
      const to = best[y];
      if (!to || less(cost, to.cost)) best[y] = { cost, items: [...from.items, i] };
    }
  }
  const done = best[need];
  return done ? { set: done.items.map((i) => cands[i]!), cost: done.cost } : null;
}
