import { makeCluster, makeJob, startsOf } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import { defaultPolicy } from "../src/index";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { replayOverloaded, steadyOverload, withJobRules } from "./support/overloaded-replay";

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
function replay(seed: number, cycles: number, rules: "none" | "arrays" | "all" = "none"): number {
  let blocked = 0;
  replayOverloaded(seed, cycles, steadyOverload(), (snap, now, c) => {
    const given = rules === "none" ? snap : withJobRules(snap, rules === "all");
    const unshared = cycle(given, now, false);
    const shared = cycle(given, now, true);
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

  it("gives the same with array caps, a per-user limit and a budget with no entitlement", () => {
    // A job a limit may hold ends a run of shared outcomes (lanes.ts takeSharedRun): its reason is the
    // limit's. Every job of a budget with a per-user limit may be held (JobLimits.mayBlock), so the
    // array caps alone are replayed too.
    for (const seed of [14, 15]) expect(replay(seed, 40, "arrays")).toBeGreaterThan(2_000);
    expect(replay(16, 40, "all")).toBeGreaterThan(2_000);
  }, 60_000);
});

describe("the retry before the unallocated lane (R3)", () => {
  const NOW = 100 * 3600;
  /**
   * n01 has 4 free GPUs under last cycle's reservation for "hold" (from NOW + 100 s, when "p"'s
   * protection ends); n02 frees sooner and n03 later. Three debug jobs of one user and one kind cannot
   * backfill the reservation (protected past its start), and nothing is interruptible, so all three
   * wait in the debug lane: d1 after a preemption search, d2 without one (the search failed for its
   * size), d3 by d2's shared outcome (blocked-memo.ts). The allocated lane makes its reservation afresh,
   * for "first" (budget a ranks ahead) on n02, which frees first; n01 is no longer reserved, and the
   * retry must give its free GPUs to all three. Left out of the retry, d3 alone would wait.
   */
  const scene = (): ClusterSnapshot => ({
    ...makeCluster()
      .nodes(3)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .usage("b", 50 * 3600)
      .job(
        makeJob("p")
          .budget("b")
          .gpus(4)
          .minRuntime("2h")
          .on("n01", [0, 1, 2, 3])
          .startedAt(NOW - 7100),
        makeJob("q")
          .budget("b")
          .gpus(8)
          .minRuntime("2h")
          .on("n02")
          .startedAt(NOW - 7150),
        makeJob("r")
          .budget("b")
          .gpus(8)
          .minRuntime("4h")
          .on("n03")
          .startedAt(NOW - 3600),
        makeJob("hold").budget("b").gpus(8).submittedAt(0),
        makeJob("first").budget("a").gpus(8).submittedAt(10),
        makeJob("d1").budget("a").user("u").gpus(1).debug().submittedAt(20),
        makeJob("d2").budget("a").user("u").gpus(1).debug().submittedAt(30),
        makeJob("d3").budget("a").user("u").gpus(1).debug().submittedAt(40),
      )
      .snapshot(),
    reservations: [{ jobId: "hold", gpus: 8, nodeIds: ["n01"], from: NOW + 100 }],
  });

  it("gives the GPUs a new reservation leaves free to every blocked job, those of a shared outcome too", () => {
    const shared = cycle(scene(), NOW, true);
    expect(JSON.stringify(shared)).toBe(JSON.stringify(cycle(scene(), NOW, false)));
    expect(shared.reservations).toEqual([{ jobId: "first", gpus: 8, nodeIds: ["n02"], from: NOW + 50 }]);
    const starts = startsOf(shared);
    expect(starts.map((o) => [o.jobId, o.placement[0]!.nodeId])).toEqual([
      ["d1", "n01"],
      ["d2", "n01"],
      ["d3", "n01"],
    ]);
    for (const o of starts) expect(o.reason.sentence).toMatch(/^Started on GPUs freed later in this cycle\./);
    expect(shared.pending.get("hold")!.code).not.toBe("RESERVED_FOR");
  });
});
