import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cheapestVictims, type SetCost } from "../src/cheapest-victims";
import type { JobState } from "../src/cluster-state";
import type { Candidate } from "../src/victim-cost";

/** What a subset costs, added up the way the knapsack adds it. */
function costOfSet(set: readonly Candidate[]): SetCost {
  const cost: SetCost = { interruptible: 0, count: 0, unallocated: 0 };
  for (const c of set) {
    if (c.tier === 1) cost.interruptible += c.lost;
    else cost.unallocated += c.lost;
    cost.count++;
  }
  return cost;
}

function key(c: SetCost): [number, number, number] {
  return [c.interruptible, c.count, c.unallocated];
}

function lexLess(a: SetCost, b: SetCost): boolean {
  const [x, y] = [key(a), key(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
}

const candidate = fc.record({
  tier: fc.constantFrom<0 | 1>(0, 1),
  g: fc.integer({ min: 1, max: 4 }),
  // Whole GPU-hours: sums are exact, so the brute force and the knapsack compare equal costs equal.
  lost: fc.integer({ min: 0, max: 50 }).map((h) => h * 3600),
});

describe("the cheapest victims on one node (R6's interruptible pass)", () => {
  it("free enough GPUs at the least cost of every subset: interruptible cost, then count, then unallocated cost", () => {
    fc.assert(
      fc.property(fc.array(candidate, { maxLength: 8 }), fc.integer({ min: 1, max: 8 }), (raw, need) => {
        const cands: Candidate[] = raw.map((c, i) => ({ ...c, r: 0, v: { job: { id: `j${i}` } } as unknown as JobState }));
        let best: SetCost | null = null;
        for (let mask = 0; mask < 1 << cands.length; mask++) {
          const set = cands.filter((_, i) => mask & (1 << i));
          if (set.reduce((n, c) => n + c.g, 0) < need) continue;
          const cost = costOfSet(set);
          if (best === null || lexLess(cost, best)) best = cost;
        }
        const got = cheapestVictims(cands, need);
        if (best === null) {
          expect(got).toBeNull();
          return;
        }
        expect(got).not.toBeNull();
        expect(got!.set.reduce((n, c) => n + c.g, 0)).toBeGreaterThanOrEqual(need);
        expect(new Set(got!.set).size).toBe(got!.set.length);
        expect(key(costOfSet(got!.set))).toEqual(key(got!.cost));
        expect(key(got!.cost)).toEqual(key(best));
      }),
      { numRuns: 2_000 },
    );
  });
});
