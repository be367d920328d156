import { makeCluster, makeJob } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { createScheduler, defaultPolicy, runCycle } from "../src/index";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult, RunningJob } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
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

describe("bringing the kept jobs up to date (kept-working-state.ts update)", () => {
  /** Six running jobs r1..r6 on three nodes, and one pending job. */
  function snapshot(): ClusterSnapshot {
    const jobs = [1, 2, 3, 4, 5, 6].map((i) =>
      makeJob(`r${i}`)
        .budget(i % 2 ? "a" : "b")
        .gpus(4)
        .minRuntime(600)
        .startedAt(0)
        .on(`n0${Math.ceil(i / 2)}`, i % 2 ? [0, 1, 2, 3] : [4, 5, 6, 7])
        .running(),
    );
    return makeCluster()
      .nodes(4, 8)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .job(...jobs, makeJob("p1").budget("a").gpus(8).submittedAt(10).pending())
      .snapshot();
  }
  const fresh = (s: ClusterSnapshot, now: number): string =>
    JSON.stringify(runCycle(JSON.parse(JSON.stringify(s)) as ClusterSnapshot, defaultPolicy, now));
  const arrival = (id: string): RunningJob =>
    makeJob(id).budget("a").gpus(4).minRuntime(600).startedAt(1100).on("n04", [0, 1, 2, 3]).running();

  /** Two cycles on one snapshot (the state is kept from the second), then each change and a cycle after it. */
  function afterChanges(memory: WorkingMemory, ...changes: ((running: RunningJob[]) => void)[]): void {
    const s = snapshot();
    for (const now of [1000, 1060]) runCycleWith(memory, s, defaultPolicy, now, FAIRSHARE);
    let now = 1060;
    for (const change of changes) {
      change(s.running as RunningJob[]);
      now += 60;
      const result = runCycleWith(memory, s, defaultPolicy, now, FAIRSHARE);
      expect(JSON.stringify(result), `at ${now}`).toBe(fresh(s, now));
    }
  }

  it("changes only the stretch that moved, in the arrays it keeps", () => {
    let kept: { jobs: unknown[]; seen: unknown[] } | null = null;
    const memory = new WorkingMemory();
    afterChanges(
      memory,
      // r3 stopped, r35 started: the jobs before and after are last cycle's, in their places.
      (running) => running.splice(2, 1, arrival("r35")),
      (running) => {
        kept = { jobs: memory.kept!.jobs, seen: memory.kept!.seen };
        running.push(arrival("r7"));
      },
    );
    // Brought up to date in place: the same arrays as the cycle before.
    expect(memory.kept!.jobs).toBe(kept!.jobs);
    expect(memory.kept!.seen).toBe(kept!.seen);
    expect(memory.kept!.seen.map((j) => j.id)).toEqual(["r1", "r2", "r35", "r4", "r5", "r6", "r7"]);
    expect(memory.kept!.jobs.map((js) => js.job.id)).toEqual(["r1", "r2", "r35", "r4", "r5", "r6", "r7"]);
  });

  it("loads afresh when a job arrives out of id order before jobs it kept", () => {
    const memory = new WorkingMemory();
    afterChanges(memory, (running) => running.splice(2, 0, arrival("r9")));
    // Not merged: nothing is kept after a cycle that loaded afresh from a list out of order.
    expect(memory.kept).toBeNull();
  });
});
