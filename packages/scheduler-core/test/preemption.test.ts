import { describe, expect, it } from "vitest";
import { defaultPolicy, resolvePolicy, runCycle } from "../src/index";
import { COST_SEARCH_WIDTH } from "../src/preemption-search";
import { makeCluster, makeJob, preemptedIds, preemptionsOf, startedIds, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

describe("R3 allocated before unallocated", () => {
  it("preempts unallocated work for an allocated job, fewest victims first", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("u-small-1").budget("a").unallocated().gpus(2).on("n01", [0, 1]).startedAt(0),
          makeJob("u-small-2").budget("a").unallocated().gpus(2).on("n01", [2, 3]).startedAt(0),
          makeJob("u-small-3").budget("a").unallocated().gpus(4).on("n01", [4, 5, 6, 7]).startedAt(0),
          makeJob("u-big").budget("a").unallocated().gpus(8).on("n02").startedAt(0),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r)).toEqual(["u-big"]);
    const p = preemptionsOf(r)[0]!;
    expect(p).toMatchObject({ byJobId: "p", reasonCode: "UNALLOCATED_FOR_ALLOCATED", gracePeriod: 10, graceUntil: NOW + 10 });
    const s = startsOf(r)[0]!;
    expect(s).toMatchObject({ jobId: "p", afterExitOf: ["u-big"], startBy: NOW + 10, protectedUntil: NOW + 10 + HOUR });
    expect(s.reason.code).toBe("PREEMPTED_UNALLOCATED");
    expect(s.reason.sentence).toMatch(/; starts once 1 leaving job exits, within 10 s\.$/);
  });

  it("prefers unallocated victims over interruptible ones even when that needs more victims", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 200 * HOUR)
        .job(
          makeJob("u1").budget("b").unallocated().gpus(4).on("n01", [0, 1, 2, 3]).startedAt(0),
          makeJob("u2").budget("b").unallocated().gpus(4).on("n01", [4, 5, 6, 7]).startedAt(0),
          makeJob("b-int").budget("b").gpus(8).minRuntime("1h").on("n02").startedAt(0),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r).sort()).toEqual(["u1", "u2"]);
  });

  it("starts a pending unallocated job only on GPUs no allocated job can use", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(makeJob("u").budget("a").unallocated().gpus(8).submittedAt(0), makeJob("p").budget("a").gpus(8).submittedAt(100))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["p"]);
    expect(r.pending.get("u")!.code).toBe("ORDER");
  });

  it("keeps a job of the reservation holder's own budget off the reserved nodes, since the holder could never preempt it", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          makeJob("free").budget("b").unallocated().gpus(4).on("n01", [0, 1, 2, 3]).startedAt(0),
          makeJob("b-1")
            .budget("b")
            .gpus(4)
            .minRuntime("8h")
            .on("n01", [4, 5, 6, 7])
            .startedAt(NOW - 60),
          makeJob("b-2")
            .budget("b")
            .gpus(8)
            .minRuntime("8h")
            .on("n02")
            .startedAt(NOW - 60),
          makeJob("big").budget("a").gpus(16).priority(1),
          makeJob("small").budget("a").gpus(4),
          makeJob("other").budget("b").gpus(4).minRuntime("8h"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations).toEqual([{ jobId: "big", gpus: 16, nodeIds: ["n01", "n02"], from: NOW - 60 + 8 * HOUR }]);
    expect(preemptedIds(r)).toEqual([]);
    expect(r.pending.get("small")).toMatchObject({ code: "RESERVED_FOR", details: { reservedForJobId: "big" } });
    expect(r.pending.get("other")!.code).toBe("RESERVED_FOR");
  });

  it("lets unallocated jobs use what allocated jobs cannot", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("run")
            .budget("a")
            .gpus(6)
            .minRuntime("8h")
            .on("n01", [0, 1, 2, 3, 4, 5])
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(4),
          makeJob("u").budget("a").unallocated().gpus(2),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["u"]);
    expect(startsOf(r)[0]!.charged).toBe(false);
  });

  it("does not let unallocated pending work preempt anyone", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("u-run").budget("a").unallocated().gpus(8).on("n01").startedAt(0),
          makeJob("u").budget("a").unallocated().gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toEqual([]);
  });
});

describe("R4 contracts and R6 preemption", () => {
  const fairShare = (victimUsage: number, preemptorUsage: number, victimStart = 0) =>
    makeCluster()
      .nodes(1)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .usage("a", preemptorUsage)
      .usage("b", victimUsage)
      .job(
        makeJob("victim").budget("b").gpus(8).minRuntime("1h").on("n01").startedAt(victimStart),
        makeJob("p").budget("a").gpus(8),
      )
      .snapshot();

  it("preempts an interruptible job for a budget that ranks ahead by more than the margin", () => {
    const r = runCycle(fairShare(100 * HOUR, 10 * HOUR), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual(["victim"]);
    const p = preemptionsOf(r)[0]!;
    expect(p).toMatchObject({ reasonCode: "FAIR_SHARE", byJobId: "p", gracePeriod: 120, requeue: true });
    expect(p.lostGpuSeconds).toBe(8 * NOW);
    expect(p.sentence).toContain("ranks ahead of budget root/b");
    expect(startsOf(r)[0]!.reason.code).toBe("PREEMPTED_INTERRUPTIBLE");
  });

  it("does not preempt when the preemptor's ratio is within the margin", () => {
    // Projected ratios count held GPUs for an hour: a = 90h, b = 92h + 8 GPUs x 1h = 100h (same
    // entitlement), so a is exactly 10% lower: not more than the margin.
    const r = runCycle(fairShare(92 * HOUR, 90 * HOUR), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual([]);
    expect(r.pending.get("p")!.code).toBe("BUDGET_OVER_SHARE");
  });

  it("preempts as soon as the preemptor is more than the margin ahead", () => {
    const r = runCycle(fairShare(92 * HOUR, 89 * HOUR), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual(["victim"]);
  });

  it("never preempts a protected job, even for a far under-served budget", () => {
    const r = runCycle(fairShare(1000 * HOUR, 0, NOW - 600), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual([]);
    expect(r.pending.get("p")!.code).toBe("CONTRACTS");
    expect(r.pending.get("p")!.details.earliestStart).toBe(NOW - 600 + HOUR);
  });

  it("never preempts within the same budget, whatever the priority", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("low").budget("a").gpus(8).priority(0).on("n01").startedAt(0),
          makeJob("high").budget("a").gpus(8).priority(9),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r)).toEqual([]);
  });

  it("preempts only when the freed GPUs let the job start", () => {
    // Interruptible 4 GPUs on a node whose other 4 are protected: freeing them would not fit 8.
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 500 * HOUR)
        .job(
          makeJob("old").budget("b").gpus(4).on("n01", [0, 1, 2, 3]).startedAt(0),
          makeJob("fresh")
            .budget("b")
            .gpus(4)
            .minRuntime("8h")
            .on("n01", [4, 5, 6, 7])
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toEqual([]);
  });

  /**
   * Two nodes with 4 interruptible GPUs each (b is far over its share; the other 4 GPUs of each are
   * protected): one 4-GPU run on n01, four 1-GPU runs on n02, started at `bigAt` and `smallAt`.
   */
  const bigOrSmalls = (bigAt: number, smallAt: number) =>
    makeCluster()
      .nodes(2)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .usage("b", 500 * HOUR)
      .job(
        makeJob("big").budget("b").gpus(4).on("n01", [0, 1, 2, 3]).startedAt(bigAt),
        ...[0, 1, 2, 3].map((i) => makeJob(`small${i}`).budget("b").gpus(1).on("n02", [i]).startedAt(smallAt)),
        ...["n01", "n02"].map((n) =>
          makeJob(`kept-${n}`)
            .budget("b")
            .gpus(4)
            .minRuntime("8h")
            .on(n, [4, 5, 6, 7])
            .startedAt(NOW - 60),
        ),
        makeJob("p").budget("a").gpus(4),
      )
      .snapshot();

  it("ends several young runs rather than one old run when together they cost less (R6: cost before count)", () => {
    // big: 4 GPUs x 10 h; the smalls: 4 x 1 GPU x 2 h.
    const r = runCycle(bigOrSmalls(0, NOW - 2 * HOUR), defaultPolicy, NOW);
    expect(preemptedIds(r).sort()).toEqual(["small0", "small1", "small2", "small3"]);
    expect(startsOf(r)[0]!.placement).toEqual([{ nodeId: "n02", gpuIndexes: [0, 1, 2, 3] }]);
  });

  it("ends the one run when the several would cost more", () => {
    // big: 4 GPUs x 5 h; the smalls: 4 x 1 GPU x 10 h.
    const r = runCycle(bigOrSmalls(NOW - 5 * HOUR, 0), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual(["big"]);
  });

  it("compares the cost of every node that can make room, up to COST_SEARCH_WIDTH, so a cheap node far down the order wins", () => {
    // 20 full nodes of b's 8-GPU runs; only the last node's run is young (2 h against 9 h).
    const names = Array.from({ length: 20 }, (_, i) => `n${String(i + 1).padStart(2, "0")}`);
    const r = runCycle(
      makeCluster()
        .nodes(20)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 500 * HOUR)
        .job(
          ...names.map((n, i) =>
            makeJob(`run-${n}`)
              .budget("b")
              .gpus(8)
              .on(n)
              .startedAt(i === 19 ? NOW - 2 * HOUR : NOW - 9 * HOUR),
          ),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(COST_SEARCH_WIDTH).toBeGreaterThanOrEqual(20);
    expect(preemptedIds(r)).toEqual(["run-n20"]);
  });

  it("takes an unallocated victim first on a node that also needs an interruptible one, whatever it has run (R3)", () => {
    // n01: u (unallocated, 10 h), i1 and i2 (interruptible, 2 h), 2 protected GPUs; p needs 4.
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 500 * HOUR)
        .job(
          makeJob("u").budget("b").unallocated().gpus(2).on("n01", [0, 1]).startedAt(0),
          makeJob("i1")
            .budget("b")
            .gpus(2)
            .on("n01", [2, 3])
            .startedAt(NOW - 2 * HOUR),
          makeJob("i2")
            .budget("b")
            .gpus(2)
            .on("n01", [4, 5])
            .startedAt(NOW - 2 * HOUR),
          makeJob("kept")
            .budget("b")
            .gpus(2)
            .minRuntime("8h")
            .on("n01", [6, 7])
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(4),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r).sort()).toEqual(["i1", "u"]);
  });

  it("honours a job's own grace period and does not requeue a non-resumable job", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("u").budget("a").unallocated().resumable(false).grace("5m").on("n01", [0]).startedAt(0),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)[0]).toMatchObject({ jobId: "u", gracePeriod: 300, requeue: false });
    expect(preemptionsOf(r)[0]!.sentence).toContain("not requeued");
  });

  it("requeues a non-resumable job that asked for it", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("u").budget("a").unallocated().resumable(false).requeueOnPreempt().on("n01", [0]).startedAt(0),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)[0]!.requeue).toBe(true);
  });

  it("frees whole nodes for a multi-node job and picks the cheapest ones", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(
          makeJob("u1")
            .budget("a")
            .unallocated()
            .gpus(8)
            .on("n01")
            .startedAt(NOW - 100),
          makeJob("u2a")
            .budget("a")
            .unallocated()
            .gpus(4)
            .on("n02", [0, 1, 2, 3])
            .startedAt(NOW - 100),
          makeJob("u2b")
            .budget("a")
            .unallocated()
            .gpus(4)
            .on("n02", [4, 5, 6, 7])
            .startedAt(NOW - 100),
          makeJob("u3")
            .budget("a")
            .unallocated()
            .gpus(8)
            .on("n03")
            .startedAt(NOW - 50),
          makeJob("big").budget("a").gpus(16),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r).sort()).toEqual(["u1", "u3"]);
    expect(startsOf(r)[0]!.placement.map((p) => p.nodeId)).toEqual(["n01", "n03"]);
  });
});

describe("R5 debug lane", () => {
  /**
   * Two full nodes: n01 holds b's runs, n02 c's; on each, one 1-GPU run started at `runAt` (its R6
   * cost: 1.25 x its age) beside 7 protected GPUs. A 1-GPU debug job of c comes.
   */
  const debugOnFull = (runAt: number) =>
    makeCluster()
      .nodes(2)
      .budget("a", 0.4)
      .budget("b", 0.3)
      .budget("c", 0.3)
      .usage("a", 0)
      .usage("b", 30 * HOUR)
      .usage("c", 60 * HOUR)
      .job(
        ...(["b", "c"] as const).flatMap((b, i) => [
          makeJob(`${b}-run`)
            .budget(b)
            .gpus(1)
            .on(`n0${i + 1}`, [0])
            .startedAt(runAt),
          makeJob(`${b}-kept`)
            .budget(b)
            .gpus(7)
            .minRuntime("8h")
            .on(`n0${i + 1}`, [1, 2, 3, 4, 5, 6, 7])
            .startedAt(NOW - 60),
        ]),
        makeJob("dbg").budget("c").debug().gpus(1),
      )
      .snapshot();

  it("may preempt any budget's interruptible run that loses little, from the most over-served budget first", () => {
    // Runs of 2 h: 2.5 GPU-hours each, under debugVictimMaxCost (4).
    const r = runCycle(debugOnFull(NOW - 2 * HOUR), defaultPolicy, NOW);
    // The debug job's own budget c is the most over-served: its interruptible job goes.
    expect(preemptedIds(r)).toEqual(["c-run"]);
    expect(preemptionsOf(r)[0]!.reasonCode).toBe("DEBUG_LANE");
    expect(startsOf(r)[0]!.reason.code).toBe("DEBUG_LANE");
  });

  it("does not end a run that would lose more than debugVictimMaxCost: the debug job waits", () => {
    // Runs of 4 h: 5 GPU-hours each.
    const snap = debugOnFull(NOW - 4 * HOUR);
    const r = runCycle(snap, defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual([]);
    expect(r.pending.get("dbg")!.code).toBe("DEBUG_VICTIM_COST");
    expect(r.pending.get("dbg")!.sentence).toContain("at most 4 GPU-hours of work");
    // The knob is the cluster's: with no limit, the old run goes.
    const open = runCycle(snap, resolvePolicy({ debugVictimMaxCost: Infinity }), NOW);
    expect(preemptedIds(open)).toEqual(["c-run"]);
  });

  it("counts a recent checkpoint: an old run that would lose little is a victim", () => {
    // 4 h old, checkpointed a minute ago: 1 GPU x 60 s + a quarter of 4 GPU-hours.
    const snap = debugOnFull(NOW - 4 * HOUR);
    snap.running.find((j) => j.id === "b-run")!.lastCheckpointAt = NOW - 60;
    expect(preemptedIds(runCycle(snap, defaultPolicy, NOW))).toEqual(["b-run"]);
  });

  it("caps the debug GPUs one user holds", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("d-run")
            .budget("a")
            .debug()
            .gpus(6)
            .user("ann")
            .on("n01", [0, 1, 2, 3, 4, 5])
            .startedAt(NOW - 60),
          makeJob("d1").budget("a").debug().gpus(4).user("ann"),
          makeJob("d2").budget("a").debug().gpus(2).user("ann"),
          makeJob("d3").budget("a").debug().gpus(4).user("bob"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    // d2 and d3 go in the lane; d1 (ann would hold 10) is ordered and placed as regular allocated
    // work: the cap limits the lane, and an allocated job is not kept off free GPUs (R2, R3).
    expect(startsOf(r).map((s) => [s.jobId, s.lane])).toEqual([
      ["d2", "DEBUG"],
      ["d3", "DEBUG"],
      ["d1", "ALLOCATED"],
    ]);
  });

  it("over the cap, a debug job gets no lane privilege: it waits with DEBUG_USER_CAP when regular work would", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 500 * HOUR) // a is far over-served: as regular work, d1 may not preempt b (R4)
        .job(
          makeJob("d-run")
            .budget("a")
            .debug()
            .gpus(4)
            .user("ann")
            .on("n01", [0, 1, 2, 3])
            .startedAt(NOW - 60),
          makeJob("b-run").budget("b").gpus(4).minRuntime("1h").on("n01", [4, 5, 6, 7]).startedAt(0).charged(),
          makeJob("d1").budget("a").debug().gpus(8).user("ann"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual([]);
    expect(preemptedIds(r)).toEqual([]);
    expect(r.pending.get("d1")!.code).toBe("DEBUG_USER_CAP");
    expect(r.pending.get("d1")!.details).toMatchObject({ userDebugGpus: 4, debugCap: 8 });
    expect(r.pending.get("d1")!.sentence).toMatch(
      /^Debug lane cap: user ann already holds 4 debug GPUs of the 8 allowed per person/,
    );
  });

  it("over the cap, a debug job still preempts unallocated work like any allocated job (R3)", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("d-run")
            .budget("a")
            .debug()
            .gpus(8)
            .user("ann")
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("u-run").budget("a").unallocated().gpus(8).on("n02").startedAt(0),
          makeJob("d1").budget("a").debug().gpus(4).user("ann"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toMatchObject([{ jobId: "u-run", byJobId: "d1", reasonCode: "UNALLOCATED_FOR_ALLOCATED" }]);
    expect(startsOf(r)[0]).toMatchObject({ jobId: "d1", lane: "ALLOCATED", reason: { code: "PREEMPTED_UNALLOCATED" } });
  });

  it("names the user by display name in the debug cap sentence when the snapshot has one", () => {
    const snap = makeCluster()
      .node("n01")
      .budget("a", 1)
      .job(
        makeJob("d-run")
          .budget("a")
          .debug()
          .gpus(8)
          .user("u1")
          .on("n01")
          .startedAt(NOW - 60),
        makeJob("d1").budget("a").debug().gpus(1).user("u1"),
      )
      .snapshot();
    for (const j of [...snap.running, ...snap.pending]) j.userName = "ann@lab.example";
    const r = runCycle(snap, defaultPolicy, NOW);
    expect(r.pending.get("d1")!.sentence).toMatch(
      /^Debug lane cap: user ann@lab.example already holds 8 debug GPUs of the 8 allowed/,
    );
  });

  it("does not let a debug-shaped unallocated job use the lane", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(
          makeJob("run").budget("a").gpus(8).on("n01").startedAt(0),
          makeJob("free-debug").budget("a").maxRuntime("10m").minRuntime(0).gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toEqual([]);
    const s = r.plan.find((o) => o.op === "START");
    expect(s).toBeUndefined();
  });
});

describe("R7 a due reservation's holder takes surplus, never another budget's owed share for its own surplus", () => {
  // a (10% of 40 GPUs: owed 4) already holds 8 on n05, so any new job of a is surplus; a ranks far
  // ahead of b on the 7-day ratio. c's nodes are protected; b's jobs are interruptible.
  const holder = (gpus: number, bNodes: string[], bShare: number) =>
    makeCluster()
      .nodes(5)
      .budget("a", 0.1)
      .budget("b", bShare)
      .budget("c", 0.9 - bShare)
      .usage("b", 500 * HOUR)
      .usage("c", 500 * HOUR)
      .job(
        makeJob("a-running")
          .budget("a")
          .gpus(8)
          .minRuntime("8h")
          .on("n05")
          .startedAt(NOW - 60),
        ...["n01", "n02", "n03", "n04"].map((n) =>
          bNodes.includes(n)
            ? makeJob(`b-${n}`).budget("b").gpus(8).minRuntime("1h").on(n).startedAt(0)
            : makeJob(`c-${n}`)
                .budget("c")
                .gpus(8)
                .minRuntime("8h")
                .on(n)
                .startedAt(NOW - 60),
        ),
        makeJob("a-pending").budget("a").gpus(gpus),
      )
      .snapshot();

  it("a one-node job of a budget above its share waits for turnover instead of taking b's surplus", () => {
    // b (10%: owed 4) holds 16 and would keep its share without one node, but a is not short of its own.
    const r = runCycle(holder(8, ["n02", "n03"], 0.1), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual([]);
    expect(startedIds(r)).toEqual([]);
  });

  it("a job of several nodes takes b's surplus", () => {
    // b (10%: owed 4) holds 24: without two nodes it still holds 8.
    const r = runCycle(holder(16, ["n01", "n02", "n03"], 0.1), defaultPolicy, NOW);
    expect(preemptedIds(r)).toHaveLength(2);
    expect(preemptionsOf(r).every((p) => p.jobId.startsWith("b-"))).toBe(true);
  });

  it("a job of several nodes does not take b's owed share", () => {
    // b (40%: owed 16) holds exactly its 16 on n02 and n03.
    const r = runCycle(holder(16, ["n02", "n03"], 0.4), defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual([]);
    expect(startedIds(r)).toEqual([]);
  });
});
