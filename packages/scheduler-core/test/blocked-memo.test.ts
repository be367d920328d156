import { describe, expect, it } from "vitest";
import { defaultPolicy } from "../src/index";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { replayOverloaded, steadyOverload } from "./support/overloaded-replay";

function cycle(snap: ClusterSnapshot, now: number, share: boolean): CycleResult {
  const memory = new WorkingMemory();
  memory.shareBlockedOutcomes = share;
  memory.rememberFailedReservations = share;
  return runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now, FAIRSHARE);
}

/**
 * A cluster kept overloaded (more submitted every cycle than finishes), jobs of few kinds so that
 * many blocked jobs share one: every cycle is run with and without shared outcomes and remembered
 * failed reservation searches, and the results must be identical. Returns how many blocked reasons the cycles gave.
 */
function replay(seed: number, cycles: number): number {
  let blocked = 0;
  replayOverloaded(seed, cycles, steadyOverload(), (snap, now, c) => {
    const unshared = cycle(snap, now, false);
    const shared = cycle(snap, now, true);
    expect(JSON.stringify(shared), `cycle ${c} at t=${now}`).toBe(JSON.stringify(unshared));
    for (const r of shared.pending.values()) if (r.details.position !== null && r.code !== "CLUSTER_DRAINING") blocked++;
    return shared;
  });
  return blocked;
}

describe("blocked jobs of one kind sharing one outcome", () => {
  it("gives every cycle of an overloaded cluster exactly the result of trying each job on its own", () => {
    // Thousands of blocked reasons over the cycles: most of them come from a shared outcome.
    for (const seed of [11, 12, 13]) expect(replay(seed, 40)).toBeGreaterThan(2_000);
  }, 60_000);
});
