import { describe, expect, it } from "vitest";
import { computeRatios, defaultPolicy, runCycle } from "../src/index";
import { makeCluster, makeJob, startedIds } from "@tranche/testkit";

const HOUR = 3600;

describe("R2 fair-tree order", () => {
  it("takes the budget with the lower ratio first", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 20 * HOUR)
        .usage("b", 10 * HOUR)
        .job(makeJob("a1").budget("a").gpus(8).submittedAt(0), makeJob("b1").budget("b").gpus(8).submittedAt(100))
        .snapshot(),
      defaultPolicy,
      1000,
    );
    expect(r.order).toEqual(["b1", "a1"]);
    expect(startedIds(r)).toEqual(["b1"]);
  });

  it("breaks ratio ties by larger entitlement, then by name", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("zed", 0.6)
        .budget("amy", 0.2)
        .budget("bob", 0.2)
        .job(makeJob("z").budget("zed").gpus(8), makeJob("b").budget("bob").gpus(8), makeJob("a").budget("amy").gpus(8))
        .snapshot(),
      defaultPolicy,
      0,
    );
    // All ratios are 0: zed has the largest entitlement; amy and bob tie, amy's name comes first.
    expect(r.order.slice(0, 1)).toEqual(["z"]);
    expect(r.order.indexOf("a")).toBeLessThan(r.order.indexOf("b"));
  });

  it("descends level by level: a division's ratio decides before its teams' ratios", () => {
    // Division x is over-served as a whole even though its team x/t1 is idle; y/t is under-served.
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("x", 0.5)
        .budget("x/t1", 0.5)
        .budget("x/t2", 0.5)
        .budget("y", 0.5)
        .budget("y/t", 1)
        .usage("x/t2", 100 * HOUR)
        .usage("y/t", 10 * HOUR)
        .job(makeJob("x1").budget("x/t1").gpus(8), makeJob("y1").budget("y/t").gpus(8))
        .snapshot(),
      defaultPolicy,
      0,
    );
    expect(r.order[0]).toBe("y1");
  });

  it("orders jobs inside a budget by priority, then by original submit time", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("late-high").budget("a").priority(5).submittedAt(500),
          makeJob("early-low").budget("a").priority(0).submittedAt(0),
          makeJob("early-high").budget("a").priority(5).submittedAt(100),
        )
        .snapshot(),
      defaultPolicy,
      1000,
    );
    expect(r.order).toEqual(["early-high", "late-high", "early-low"]);
  });

  it("never lets priority jump across budgets", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 50 * HOUR)
        .job(makeJob("a-urgent").budget("a").gpus(8).priority(100), makeJob("b-normal").budget("b").gpus(8))
        .snapshot(),
      defaultPolicy,
      0,
    );
    expect(r.order[0]).toBe("b-normal");
  });

  it("updates the projected ratio as jobs start so one under-served team does not take the whole cluster", () => {
    // a is slightly under-served; each 8-GPU start adds 8 GPU-hours of projection to its ratio.
    const jobs = [];
    for (let i = 0; i < 4; i++) jobs.push(makeJob(`a${i}`).budget("a").gpus(8).submittedAt(i));
    for (let i = 0; i < 4; i++) jobs.push(makeJob(`b${i}`).budget("b").gpus(8).submittedAt(i));
    const r = runCycle(
      makeCluster()
        .nodes(4)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 0)
        .usage("b", 1 * HOUR)
        .window("2h")
        .job(...jobs)
        .snapshot(),
      defaultPolicy,
      0,
    );
    const started = startedIds(r);
    expect(started).toHaveLength(4);
    expect(started.filter((id) => id.startsWith("a"))).toHaveLength(2);
    expect(started.filter((id) => id.startsWith("b"))).toHaveLength(2);
  });

  it("counts GPUs a budget already holds in its projected ratio", () => {
    // Same usage, but a already runs 8 GPUs: b goes first.
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          makeJob("a-run").budget("a").gpus(8).on("n01").startedAt(0),
          makeJob("a1").budget("a").gpus(8),
          makeJob("b1").budget("b").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      60,
    );
    expect(r.order[0]).toBe("b1");
    expect(r.ratios.find((x) => x.treeNodeId === "a")!.heldGpus).toBe(8);
  });

  it("orders the debug lane first, then allocated work, then unallocated work", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 100 * HOUR)
        .job(
          makeJob("free").budget("a").unallocated().submittedAt(0),
          makeJob("regular").budget("a").submittedAt(0),
          makeJob("debug").budget("b").debug().submittedAt(50),
        )
        .snapshot(),
      defaultPolicy,
      100,
    );
    expect(r.order).toEqual(["debug", "regular", "free"]);
  });

  it("treats a budget without allocation as unallocated work with an infinite ratio", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .budget("guest", 0)
        .job(makeJob("g1").budget("guest").submittedAt(0), makeJob("a1").budget("a").submittedAt(10))
        .snapshot(),
      defaultPolicy,
      100,
    );
    expect(r.order).toEqual(["a1", "g1"]);
    expect(r.ratios.find((x) => x.treeNodeId === "guest")!.ratio).toBe(Infinity);
    const s = r.plan.find((o) => o.op === "START" && o.jobId === "g1");
    expect(s && s.op === "START" && s.charged).toBe(false);
  });

  it("takes jobs submitted in the same second by their ids as numbers: 99 before 100 (an array's tasks in index order)", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("101").budget("a").gpus(8).submittedAt(5),
          makeJob("100").budget("a").gpus(8).submittedAt(5),
          makeJob("99").budget("a").gpus(8).submittedAt(5),
          makeJob("98").budget("a").gpus(8).submittedAt(6),
        )
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(r.order).toEqual(["99", "100", "101", "98"]);
    expect(startedIds(r)).toEqual(["99"]);
  });

  it("leaves held jobs out of the order with reason HELD", () => {
    const r = runCycle(makeCluster().nodes(1).budget("a", 1).job(makeJob("h").budget("a").held()).snapshot(), defaultPolicy, 0);
    expect(r.order).toEqual([]);
    expect(r.pending.get("h")!.code).toBe("HELD");
    expect(startedIds(r)).toEqual([]);
  });

  it("reports the same ratios from computeRatios as a cycle does before it starts anything", () => {
    const snap = makeCluster()
      .nodes(2)
      .budget("lab", 1)
      .budget("lab/a", 0.75)
      .budget("lab/b", 0.25)
      .budget("guest", 0)
      .usage("lab/a", 10 * HOUR)
      .usage("lab/b", 3 * HOUR)
      .job(
        makeJob("run").budget("lab/a").gpus(4).on("n01").startedAt(0),
        makeJob("free").budget("lab/b").unallocated().gpus(2).on("n02").startedAt(0),
      )
      .snapshot();
    const ratios = computeRatios(snap, defaultPolicy);
    const a = ratios.find((r) => r.treeNodeId === "lab/a")!;
    expect(a.heldGpus).toBe(4); // the unallocated job is not charged
    expect(a.projectedRatio).toBeCloseTo((10 * HOUR + 4 * HOUR) / a.entitlementGpuSeconds, 12);
    expect(ratios.find((r) => r.treeNodeId === "lab")!.usageGpuSeconds).toBe(13 * HOUR);
    expect(ratios.find((r) => r.treeNodeId === "guest")!.ratio).toBe(Infinity);
    const cycle = runCycle(snap, defaultPolicy, 10);
    expect(cycle.ratios.map((r) => [r.treeNodeId, r.projectedRatio])).toEqual(
      ratios.map((r) => [r.treeNodeId, r.projectedRatio]),
    );
  });
});
