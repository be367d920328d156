import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy, runCycle } from "../src/index";
import type { ClusterSnapshot, CycleResult } from "../src/types";
import { replayOverloaded, type Workload } from "./support/overloaded-replay";

/**
 * Replays cycles the way the simulator does (replayOverloaded: one running array changed in place, so
 * the core keeps its board between cycles). Every cycle is also run on a deep copy of the same
 * snapshot (new objects: a fresh load) and the two results must be identical.
 */
function replay(
  seed: number,
  cycles: number,
  nodeEvent?: { at: number; nodeId: string; until: number },
  readReasonsLate = false,
): number {
  const workload: Workload = {
    gpus: [1, 1, 2, 4, 8, 8, 16],
    unallocated: 0.25,
    minRuntimes: [600, 1800, 3600],
    users: null,
    runFor: { min: 300, spread: 5000 },
    initial: 30,
    arrive: (rnd, submit) => {
      for (let i = 0; i < 3; i++) if (rnd() < 0.7) submit();
    },
  };
  const scheduler = createScheduler(defaultPolicy);
  let compared = 0;
  // Results whose reasons were not read yet, with the fresh result's JSON to compare at the end.
  const late: { c: number; kept: CycleResult; fresh: string }[] = [];
  replayOverloaded(
    seed,
    cycles,
    workload,
    (snap, now, c) => {
      const fresh = runCycle(JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now);
      const kept = scheduler.runCycle(snap, now);
      if (readReasonsLate) late.push({ c, kept, fresh: JSON.stringify(fresh) });
      else {
        expect(JSON.stringify(kept), `cycle ${c} at t=${now}`).toBe(JSON.stringify(fresh));
        compared++;
      }
      return kept;
    },
    nodeEvent,
  );
  for (const { c, kept, fresh } of late) {
    expect(JSON.stringify(kept), `cycle ${c}, reasons read after the last cycle`).toBe(fresh);
    compared++;
  }
  return compared;
}

describe("a board kept between cycles", () => {
  it("gives every cycle exactly the result of a fresh load of the same snapshot", () => {
    for (const seed of [1, 2, 3]) expect(replay(seed, 60)).toBe(60);
  }, 60_000);

  it("still does when a node drains and comes back in the middle", () => {
    expect(replay(4, 60, { at: 2400, nodeId: "n02", until: 4800 })).toBe(60);
  }, 60_000);

  it("gives the same reasons when they are first read only after later cycles moved the board on", () => {
    // The reasons are built when first read (PendingReasons): nothing they read may change meanwhile.
    for (const seed of [5, 6]) expect(replay(seed, 60, { at: 2400, nodeId: "n01", until: 4800 }, true)).toBe(60);
  }, 60_000);
});
