import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultPolicy, runCycle, type ClusterSnapshot } from "../src/index";
import { makeCluster, makeJob } from "@tranche/testkit";

describe("runCycle on malformed snapshots", () => {
  it("handles an empty cluster and an empty tree without throwing", () => {
    const empty: ClusterSnapshot = {
      cluster: { id: "c", name: "c", gpuType: "H100" },
      nodes: [],
      tree: [],
      running: [],
      pending: [],
    };
    expect(runCycle(empty, defaultPolicy, 0).plan).toEqual([]);
    const orphanJob = { ...empty, pending: [makeJob("j").pending()] };
    expect(runCycle(orphanJob, defaultPolicy, 0).pending.get("j")!.code).toBe("INVALID_CONTRACT");
  });

  it("ignores placements on unknown nodes and out-of-range GPU indexes, and never places on them", () => {
    const snap = makeCluster()
      .nodes(1)
      .budget("a", 1)
      .job(
        makeJob("ghost").budget("a").gpus(2).on("nowhere", [0, 1]).startedAt(0),
        makeJob("odd").budget("a").gpus(2).on("n01", [7, 99]).startedAt(0),
        makeJob("p").budget("a").gpus(7),
      )
      .snapshot();
    const r = runCycle(snap, defaultPolicy, 10);
    const s = r.plan.find((o) => o.op === "START");
    expect(s).toMatchObject({ jobId: "p", placement: [{ nodeId: "n01", gpuIndexes: [0, 1, 2, 3, 4, 5, 6] }] });
  });

  it("never throws whatever the numbers in the jobs", () => {
    const num = fc.oneof(fc.integer({ min: -5, max: 40 }), fc.constantFrom(0.5, Number.NaN, Infinity, -Infinity));
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gpus: num,
            minRuntime: num,
            maxRuntime: fc.option(num),
            priority: num,
            grace: fc.option(num),
            budget: fc.constantFrom("a", "b", "zz", ""),
          }),
          { maxLength: 12 },
        ),
        (jobs) => {
          const c = makeCluster().nodes(2).node("small", { gpus: 4 }).budget("a", 0.5).budget("b", 0);
          jobs.forEach((j, i) => {
            const p = makeJob(`j${i}`).pending();
            c.job({
              ...p,
              budgetId: j.budget,
              gpus: j.gpus,
              minRuntime: j.minRuntime,
              maxRuntime: j.maxRuntime,
              priority: j.priority,
              gracePeriod: j.grace,
            });
          });
          const r = runCycle(c.snapshot(), defaultPolicy, 1000);
          const started = r.plan.filter((o) => o.op === "START").length;
          expect([...r.pending.keys()].length + started).toBe(jobs.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
