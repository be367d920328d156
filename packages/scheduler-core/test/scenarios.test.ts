import { describe, expect, it } from "vitest";
import { PENDING_REASON_CODES, defaultPolicy, runCycle } from "../src/index";
import { createHarness, makeCluster, makeJob, preemptionsOf, startedIds, startsOf } from "@tranche/testkit";
import { consolidation } from "./support/scenes";

/**
 * One declarative scenario per SPEC rule: a tree, nodes, jobs, some cycles in virtual time (the
 * testkit harness applies each plan the way the worker does), and the expected starts, preemptions
 * and reasons.
 */
const MIN = 60;
const HOUR = 3600;

describe("SPEC rules as scenarios", () => {
  it("R1 Capacity: never more GPUs than a node has, multi-node jobs only on whole READY nodes, gang starts", () => {
    const h = createHarness(
      makeCluster()
        .nodes(2)
        .node("n03", { state: "CORDONED" })
        .budget("a", 1)
        .job(
          makeJob("small-1").budget("a").gpus(6).submittedAt(0),
          makeJob("small-2").budget("a").gpus(6).submittedAt(1),
          makeJob("pair").budget("a").gpus(16).submittedAt(2),
        )
        .snapshot(),
      { durations: { "small-1": HOUR, "small-2": HOUR, pair: HOUR } },
    );
    for (let i = 0; i < 6; i++) {
      h.cycle();
      const used = new Map<string, number>();
      for (const j of h.snapshot.running)
        for (const p of j.placement) used.set(p.nodeId, (used.get(p.nodeId) ?? 0) + p.gpuIndexes.length);
      for (const [node, n] of used) {
        expect(n).toBeLessThanOrEqual(8);
        expect(node).not.toBe("n03");
      }
      h.advance(30 * MIN);
    }
    expect(h.startOf("small-1")!.at).toBe(0);
    expect(h.startOf("small-2")!.at).toBe(0);
    // The 16-GPU gang waits for both nodes to be whole, then starts on both at once.
    expect(h.startOf("pair")).toMatchObject({ at: HOUR, placement: [{ nodeId: "n01" }, { nodeId: "n02" }] });
  });

  it("R2 Order: shares converge to allocations over time, and one team cannot take the cluster in one cycle", () => {
    const jobs = [];
    for (let i = 0; i < 120; i++) jobs.push(makeJob(`a${i}`).budget("lab/a").gpus(1).minRuntime("30m").submittedAt(i));
    for (let i = 0; i < 120; i++) jobs.push(makeJob(`b${i}`).budget("lab/b").gpus(1).minRuntime("30m").submittedAt(i));
    const durations = Object.fromEntries(jobs.map((j) => [j.id, HOUR]));
    const h = createHarness(
      makeCluster()
        .nodes(1)
        .budget("lab", 1)
        .budget("lab/a", 0.75)
        .budget("lab/b", 0.25)
        .window("1h")
        .job(...jobs)
        .snapshot(),
      { durations },
    );
    const first = h.cycle();
    // 8 GPUs: the projected ratio moves as a's jobs start, so b gets some in the very first cycle.
    expect(startedIds(first).filter((id) => id.startsWith("b")).length).toBeGreaterThan(0);
    h.advance(HOUR);
    for (let i = 0; i < 9; i++) h.run(1, HOUR);
    const usage = (id: string) => h.snapshot.tree.find((t) => t.id === id)!.usageGpuSeconds;
    const shareA = usage("lab/a") / (usage("lab/a") + usage("lab/b"));
    expect(shareA).toBeGreaterThan(0.65);
    expect(shareA).toBeLessThan(0.85);
  });

  it("R3 Allocated before unallocated: free work is preempted the moment allocated work needs the GPUs", () => {
    const h = createHarness(
      makeCluster().nodes(1).budget("a", 1).job(makeJob("free").budget("a").unallocated().gpus(8).submittedAt(0)).snapshot(),
    );
    h.cycle();
    expect(h.startOf("free")).toMatchObject({ at: 0, charged: false });
    h.advance(10 * MIN);
    h.submit(makeJob("paid").budget("a").gpus(4).submittedAt(h.now).pending(), HOUR);
    const r = h.cycle();
    expect(preemptionsOf(r)).toMatchObject([{ jobId: "free", byJobId: "paid", reasonCode: "UNALLOCATED_FOR_ALLOCATED" }]);
    expect(h.startOf("paid")).toMatchObject({ at: 10 * MIN, charged: true });
    // Unallocated work may use what no allocated job needs, but never preempts allocated work.
    h.advance(MIN);
    h.submit(makeJob("free-2").budget("a").unallocated().gpus(4).pending());
    const r2 = h.cycle();
    expect(preemptionsOf(r2)).toEqual([]);
    expect(startedIds(r2)).toEqual(["free-2"]);
    expect(r2.pending.get("free")!.code).toBe("CAPACITY");
  });

  it("R4 Contracts: a protected job finishes its minRuntime, then yields to an under-served budget", () => {
    const h = createHarness(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 100 * HOUR)
        .job(
          makeJob("b-job").budget("b").gpus(8).minRuntime("2h").on("n01").startedAt(0).charged(),
          makeJob("a-job").budget("a").gpus(8),
        )
        .snapshot(),
    );
    for (let t = 0; t < 2 * HOUR; t += 30 * MIN) {
      const r = h.cycle();
      expect(preemptionsOf(r)).toEqual([]);
      expect(r.pending.get("a-job")).toMatchObject({ code: "CONTRACTS", details: { earliestStart: 2 * HOUR } });
      h.advance(30 * MIN);
    }
    const r = h.cycle();
    expect(preemptionsOf(r)).toMatchObject([{ jobId: "b-job", byJobId: "a-job", reasonCode: "FAIR_SHARE", requeue: true }]);
    expect(h.startOf("a-job")!.at).toBe(2 * HOUR);
  });

  it("R5 Debug lane: a debug job starts within one cycle on a full cluster, within its user's cap", () => {
    // Runs 22 minutes old, past their 20-minute minimum: a debug job may end runs that lose little
    // (8 GPUs x 22 min, with a quarter of it again: 3.7 GPU-hours, under debugVictimMaxCost).
    const running = [1, 2].map((i) =>
      makeJob(`long-${i}`)
        .budget("b")
        .gpus(8)
        .minRuntime("20m")
        .on(`n0${i}`)
        .startedAt(2 * HOUR - 22 * MIN)
        .charged(),
    );
    const h = createHarness(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 500 * HOUR) // the debug job's budget is far over-served: rank does not matter
        .job(
          ...running,
          makeJob("dbg-1").budget("a").debug().gpus(4).user("ann"),
          makeJob("dbg-2").budget("a").debug().gpus(8).user("ann"),
        )
        .snapshot(),
      { now: 2 * HOUR },
    );
    const r = h.cycle();
    expect(startedIds(r)).toEqual(["dbg-1"]);
    expect(preemptionsOf(r)[0]).toMatchObject({ reasonCode: "DEBUG_LANE", byJobId: "dbg-1" });
    expect(r.pending.get("dbg-2")!.code).toBe("DEBUG_USER_CAP");
    // Once dbg-1 is done (it launches when its victim's 120 s grace ends, then runs 10 minutes),
    // ann may run dbg-2.
    h.advance(10 * MIN);
    expect(startedIds(h.cycle())).toEqual([]);
    h.advance(2 * MIN);
    // dbg-2 takes the freed node; its earlier victim long-1 waits: budget b already holds its owed
    // share (long-2), so long-1 is surplus work and preempts nothing (owed share first, R4).
    const r2 = h.cycle();
    expect(startedIds(r2)).toEqual(["dbg-2"]);
    expect(r2.pending.get("long-1")!.code).toBe("ORDER");
  });

  it("R6 Preemption: a resumable victim is requeued with its original submit time and protected again at its next start", () => {
    const h = createHarness(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 100 * HOUR)
        .job(
          makeJob("victim").budget("b").gpus(8).minRuntime("1h").submittedAt(123).on("n01").startedAt(0).charged(),
          makeJob("winner").budget("a").gpus(8),
        )
        .snapshot(),
      { now: 2 * HOUR, durations: { winner: HOUR } },
    );
    const r = h.cycle();
    expect(preemptionsOf(r)).toMatchObject([{ jobId: "victim", gracePeriod: 120, graceUntil: 2 * HOUR + 120, requeue: true }]);
    expect(preemptionsOf(r)[0]!.sentence).toContain("requeued with its original submit time");
    // It winds down during its grace, then is requeued when its processes are gone.
    expect(h.snapshot.running.find((j) => j.id === "victim")!.stopping).toEqual({
      byJobId: "winner",
      graceUntil: 2 * HOUR + 120,
    });
    h.advance(HOUR);
    const requeued = h.snapshot.pending.find((j) => j.id === "victim")!;
    expect(requeued).toMatchObject({ submittedAt: 123, requeuedAt: 2 * HOUR + 120 });
    h.advance(120); // the winner launched at 2 h + 120 s and runs one hour
    const r2 = h.cycle();
    const restart = r2.plan.find((o) => o.op === "START" && o.jobId === "victim");
    expect(restart).toMatchObject({ startBy: 3 * HOUR + 120, protectedUntil: 4 * HOUR + 120 });
  });

  it("R7 Reservations: a large job is not starved by a stream of small ones", () => {
    // Budget s keeps submitting 1-GPU jobs; the 16-GPU job from the more under-served budget L
    // reserves nodes and starts once their protected work ends.
    const small = (i: number) => makeJob(`s${i}`).budget("s").gpus(1).minRuntime("30m").submittedAt(i).pending();
    const base = makeCluster()
      .nodes(2)
      .budget("L", 0.5)
      .budget("s", 0.5)
      .usage("s", 20 * HOUR);
    for (let i = 0; i < 16; i++)
      base.job(
        makeJob(`r${i}`)
          .budget("s")
          .gpus(1)
          .minRuntime("30m")
          .on(`n0${1 + (i % 2)}`, [Math.floor(i / 2)])
          .startedAt(0)
          .charged(),
      );
    base.job(makeJob("large").budget("L").gpus(16).minRuntime("1h").submittedAt(0));
    const durations: Record<string, number> = { large: 2 * HOUR };
    for (let i = 0; i < 16; i++) durations[`r${i}`] = 10 * HOUR;
    const h = createHarness(base.snapshot(), { now: 5 * MIN, durations });
    let k = 0;
    for (let t = 0; t < 3 * HOUR && !h.startOf("large"); t += 5 * MIN) {
      for (let j = 0; j < 4; j++) h.submit(small(k++), 10 * HOUR);
      h.cycle();
      h.advance(5 * MIN);
    }
    const first = h.results[0]!;
    expect(first.reservations[0]).toMatchObject({ jobId: "large", from: 30 * MIN });
    expect(h.startOf("large")).toBeDefined();
    expect(h.startOf("large")!.at).toBeLessThanOrEqual(35 * MIN);
  });

  it("R7 with R5: debug jobs that finish before a reservation use its nodes, longer ones do not", () => {
    // n01 holds protected work until 30 min from now: the 8-GPU job of budget L reserves it.
    const h = createHarness(
      makeCluster()
        .nodes(1)
        .budget("L", 0.5)
        .budget("s", 0.5)
        .usage("s", 20 * HOUR)
        .job(
          makeJob("blocker")
            .budget("s")
            .gpus(4)
            .minRuntime("40m")
            .on("n01", [0, 1, 2, 3])
            .startedAt(-10 * MIN)
            .charged(),
          makeJob("big").budget("L").gpus(8),
        )
        .snapshot(),
      { durations: { blocker: HOUR } },
    );
    expect(h.cycle().reservations).toMatchObject([{ jobId: "big", nodeIds: ["n01"], from: 30 * MIN }]);
    h.advance(MIN);
    h.submit(
      makeJob("dbg-long")
        .budget("s")
        .debug()
        .maxRuntime("15m")
        .minRuntime("15m")
        .gpus(2)
        .user("ann")
        .submittedAt(h.now)
        .pending(),
    );
    h.submit(
      makeJob("dbg-short")
        .budget("s")
        .debug()
        .maxRuntime("10m")
        .minRuntime("10m")
        .gpus(2)
        .user("bob")
        .submittedAt(h.now)
        .pending(),
    );
    // At 25 min, a 10-minute debug job would run past the reservation; at 1 min both fit before it.
    const r = h.cycle();
    expect(startedIds(r).sort()).toEqual(["dbg-long", "dbg-short"]);
    h.advance(23 * MIN); // both debug jobs have ended by now (t = 24 min)
    h.submit(makeJob("dbg-late").budget("s").debug().gpus(2).user("cy").submittedAt(h.now).pending());
    h.submit(
      makeJob("dbg-tiny").budget("s").debug().maxRuntime("5m").minRuntime("5m").gpus(2).user("dee").submittedAt(h.now).pending(),
    );
    const r2 = h.cycle();
    expect(startedIds(r2)).toEqual(["dbg-tiny"]);
    expect(r2.pending.get("dbg-late")).toMatchObject({
      code: "RESERVED_FOR",
      details: { reservedForJobId: "big", reservedFrom: 30 * MIN },
    });
  });

  it("R7 with R5: a one-node job the debug reserve keeps off its due reservation does not hold back a debug job there", () => {
    // 13 nodes = 104 GPUs, an 8% reserve = 8 GPUs. Only n13 is free: the 8-GPU job of budget a would
    // take the reserve, so it waits and reserves n13 from now.
    const policy = { ...defaultPolicy, debugReserve: 0.08 };
    const h = createHarness(
      makeCluster()
        .nodes(13)
        .budget("a", 0.5)
        .budget("s", 0.5)
        .job(
          ...Array.from({ length: 12 }, (_, i) =>
            makeJob(`run-${i + 1}`)
              .budget("s")
              .gpus(8)
              .minRuntime("2h")
              .on(`n${String(i + 1).padStart(2, "0")}`)
              .startedAt(-10 * MIN)
              .charged(),
          ),
          makeJob("eight").budget("a").gpus(8),
        )
        .snapshot(),
      { policy, durations: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`run-${i + 1}`, 3 * HOUR])) },
    );
    const first = h.cycle();
    expect(startedIds(first)).toEqual([]);
    expect(first.reservations).toMatchObject([{ jobId: "eight", nodeIds: ["n13"], from: 0 }]);
    expect(first.pending.get("eight")?.code).toBe("DEBUG_RESERVE");
    h.advance(MIN);
    h.submit(makeJob("dbg").budget("s").debug().gpus(8).user("ann").submittedAt(h.now).pending());
    // The debug lane goes first: the reserve is kept for it, and the reservation's holder could not use it.
    const second = h.cycle();
    expect(startsOf(second).map((st) => [st.jobId, st.placement[0]!.nodeId])).toEqual([["dbg", "n13"]]);
    expect(preemptionsOf(second)).toEqual([]);
  });

  it("R7 with R5: a due reservation of several nodes holds its free GPUs back from a debug job", () => {
    // big (16 GPUs, both nodes) waits for s's protected runs: its reservation is due at 10 min.
    const h = createHarness(
      makeCluster()
        .nodes(2)
        .budget("L", 0.5)
        .budget("s", 0.5)
        .usage("s", 20 * HOUR)
        .job(
          makeJob("half")
            .budget("s")
            .gpus(4)
            .minRuntime("40m")
            .on("n01", [0, 1, 2, 3])
            .startedAt(-30 * MIN)
            .charged(),
          makeJob("full")
            .budget("s")
            .gpus(8)
            .minRuntime("40m")
            .on("n02")
            .startedAt(-30 * MIN)
            .charged(),
          makeJob("big").budget("L").gpus(16),
        )
        .snapshot(),
      { durations: { half: 3 * HOUR, full: 3 * HOUR } },
    );
    expect(h.cycle().reservations).toMatchObject([{ jobId: "big", nodeIds: ["n01", "n02"], from: 10 * MIN }]);
    h.advance(11 * MIN);
    h.submit(makeJob("dbg").budget("s").debug().gpus(2).user("ann").submittedAt(h.now).pending());
    const r = h.cycle();
    expect(startedIds(r)).toEqual(["big"]);
    expect(r.pending.get("dbg")).toMatchObject({ code: "RESERVED_FOR", details: { reservedForJobId: "big" } });
  });

  it("R8 Drain: an unhealthy node drains as contracts allow, then goes to repair", () => {
    const h = createHarness(
      makeCluster()
        .node("n01", { lastHeartbeatAt: 0 })
        .node("n02", { lastHeartbeatAt: 0 })
        .budget("a", 1)
        .job(
          makeJob("protected").budget("a").gpus(4).minRuntime("1h").on("n01", [0, 1, 2, 3]).startedAt(0).charged(),
          makeJob("free").budget("a").unallocated().gpus(4).on("n01", [4, 5, 6, 7]).startedAt(0).charged(false),
        )
        .snapshot(),
    );
    h.reportUnhealthy("n01");
    const r1 = h.cycle();
    expect(r1.plan.filter((o) => o.op === "NODE_STATE").map((o) => o.op === "NODE_STATE" && o.to)).toEqual(["DRAINING"]);
    expect(preemptionsOf(r1).map((p) => [p.jobId, p.reasonCode])).toEqual([["free", "DRAIN"]]);
    h.advance(30 * MIN);
    expect(preemptionsOf(h.cycle())).toEqual([]);
    h.advance(30 * MIN);
    expect(preemptionsOf(h.cycle()).map((p) => p.jobId)).toEqual(["protected"]);
    h.advance(MIN); // still inside its 120 s grace: the node is not empty yet
    expect(h.cycle().plan.filter((o) => o.op === "NODE_STATE")).toEqual([]);
    h.advance(MIN);
    const r4 = h.cycle();
    expect(r4.plan).toContainEqual(
      expect.objectContaining({ op: "NODE_STATE", nodeId: "n01", to: "REPAIR", runRepairHook: true }),
    );
  });

  it("R9 Failure: a silent node goes DOWN, its resumable job is requeued at once and restarts elsewhere", () => {
    const h = createHarness(
      makeCluster()
        .node("n01", { lastHeartbeatAt: 0 })
        .node("n02", { lastHeartbeatAt: 0 })
        .budget("a", 1)
        .job(makeJob("job").budget("a").gpus(8).minRuntime("8h").submittedAt(7).on("n01").startedAt(0).charged())
        .snapshot(),
    );
    h.silence("n01");
    h.run(1, 20);
    expect(h.results[0]!.plan.filter((o) => o.op !== "START")).toEqual([]);
    h.advance(30); // past heartbeatTimeout + fenceGrace (30 s + 10 s)
    const r = h.cycle();
    expect(r.plan).toContainEqual(expect.objectContaining({ op: "NODE_STATE", nodeId: "n01", to: "DOWN" }));
    expect(r.plan).toContainEqual(expect.objectContaining({ op: "LOST", jobId: "job", requeue: true, charged: true }));
    h.advance(1);
    expect(h.cycle().plan).toContainEqual(
      expect.objectContaining({
        op: "START",
        jobId: "job",
        placement: [{ nodeId: "n02", gpuIndexes: [0, 1, 2, 3, 4, 5, 6, 7] }],
      }),
    );
  });

  it("R10 Explanations: after every cycle each pending job has one reason with numbers", () => {
    const jobs = [];
    for (let i = 0; i < 12; i++)
      jobs.push(
        makeJob(`j${i}`)
          .budget(i % 3 ? "a" : "b")
          .gpus([1, 2, 4, 8, 16][i % 5]!)
          .minRuntime(i % 4 === 0 ? 0 : 1800)
          .submittedAt(i),
      );
    const durations = Object.fromEntries(jobs.map((j, i) => [j.id, (i + 1) * 20 * MIN]));
    const h = createHarness(
      makeCluster()
        .nodes(2)
        .budget("a", 0.6)
        .budget("b", 0.4)
        .job(...jobs)
        .snapshot(),
      { durations },
    );
    for (let c = 0; c < 8; c++) {
      const before = new Map(h.snapshot.pending.map((j) => [j.id, j]));
      const r = h.cycle();
      const started = new Set(startedIds(r));
      expect([...r.pending.keys()].sort()).toEqual([...before.keys()].filter((id) => !started.has(id)).sort());
      for (const j of [...before.values()].filter((x) => !started.has(x.id))) {
        const reason = r.pending.get(j.id)!;
        expect(PENDING_REASON_CODES).toContain(reason.code);
        expect(reason.details.gpus).toBe(j.gpus);
        expect(reason.details.position).toBeGreaterThan(0);
        expect(reason.sentence).toMatch(/\d/);
      }
      h.advance(20 * MIN);
    }
  });

  it("R11 Determinism: two runs over the same inputs make the same decisions", () => {
    const build = () => {
      const c = makeCluster()
        .nodes(3)
        .budget("x", 0.3)
        .budget("y", 0.3)
        .budget("z", 0.4)
        .usage("z", 5 * HOUR);
      for (let i = 0; i < 20; i++)
        c.job(
          makeJob(`k${i}`)
            .budget(["x", "y", "z"][i % 3]!)
            .gpus([1, 2, 8, 16][i % 4]!)
            .minRuntime(i % 5 ? "1h" : 0)
            .submittedAt(i % 7),
        );
      return c.snapshot();
    };
    const a = createHarness(build());
    const b = createHarness(build());
    a.run(6, 20 * MIN);
    b.run(6, 20 * MIN);
    expect(JSON.stringify(b.results)).toBe(JSON.stringify(a.results));
    expect(runCycle(build(), defaultPolicy, 99)).toEqual(runCycle(build(), defaultPolicy, 99));
  });
  it("R12 Consolidation: unallocated work in the way of an allocated job moves to free GPUs elsewhere instead of waiting in the queue", () => {
    // n01: an unallocated job on half the node, the other half free; n02 and n03: a protected job and 4 free GPUs each.
    const h = consolidation();
    const r = h.cycle();
    const move = preemptionsOf(r).find((p) => p.jobId === "free")!;
    expect(move).toMatchObject({ reasonCode: "CONSOLIDATION", byJobId: "big", requeue: true, gracePeriod: 10 });
    // It restarts in the same plan on free GPUs of another node, after its own exit; the big job waits for that exit too.
    const relaunch = r.plan.find((o) => o.op === "START" && o.jobId === "free");
    expect(relaunch).toMatchObject({
      placement: [{ nodeId: "n02", gpuIndexes: [4, 5, 6, 7] }],
      afterExitOf: ["free"],
      startBy: h.now + 10,
      reason: { code: "CONSOLIDATION" },
    });
    expect(h.startOf("big")).toMatchObject({ placement: [{ nodeId: "n01" }], afterExitOf: ["free"], startBy: h.now + 10 });
    expect(h.moves.map((m) => m.jobId)).toEqual(["free"]);
    // Never pending: the next snapshot has it running on n02.
    h.advance(20);
    expect(h.snapshot.pending.map((p) => p.id)).toEqual([]);
    expect(h.snapshot.running.find((j) => j.id === "free")!.placement).toEqual([{ nodeId: "n02", gpuIndexes: [4, 5, 6, 7] }]);
    // Within 30 minutes of that restart it is not moved again, though n03 has free GPUs: R3 preempts it as always.
    h.advance(10 * MIN);
    h.submit(makeJob("big2").budget("a").gpus(8).submittedAt(h.now).pending(), HOUR);
    const again = h.cycle();
    expect(preemptionsOf(again).map((p) => [p.jobId, p.reasonCode])).toEqual([["free", "UNALLOCATED_FOR_ALLOCATED"]]);
    expect(again.plan.some((o) => o.op === "START" && o.jobId === "free")).toBe(false);
    expect(h.startOf("big2")).toMatchObject({ placement: [{ nodeId: "n02" }] });
  });
  it("R12 Consolidation: a pending unallocated job that fits on no node starts once small unallocated jobs move into other nodes' holes", () => {
    // n01: a 2-GPU unallocated job and 6 free GPUs; n02: protected work and 2 free GPUs. An 8-GPU job fits nowhere.
    const h = createHarness(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("small").budget("a").unallocated().gpus(2).startedAt(0).on("n01", [0, 1]).running(),
          makeJob("kept").budget("a").gpus(6).minRuntime("8h").startedAt(0).on("n02", [0, 1, 2, 3, 4, 5]).running(),
          makeJob("wide").budget("a").unallocated().gpus(8).submittedAt(0).pending(),
        )
        .snapshot(),
      { now: 10 * MIN, durations: { small: 10 * HOUR, kept: 10 * HOUR, wide: HOUR } },
    );
    // Too young to move (consolidationMinAge 30 min): it waits.
    expect(startsOf(h.cycle())).toEqual([]);
    h.advance(30 * MIN);
    const r = h.cycle();
    // The 2-GPU job moves to n02's 2 free GPUs; the 8-GPU job takes n01 once it has left.
    expect(preemptionsOf(r).map((p) => [p.jobId, p.reasonCode, p.byJobId])).toEqual([["small", "CONSOLIDATION", "wide"]]);
    expect(startsOf(r).map((s) => [s.jobId, s.placement, s.afterExitOf, s.reason.code])).toEqual([
      ["small", [{ nodeId: "n02", gpuIndexes: [6, 7] }], ["small"], "CONSOLIDATION"],
      ["wide", [{ nodeId: "n01", gpuIndexes: [0, 1, 2, 3, 4, 5, 6, 7] }], ["small"], "CONSOLIDATION"],
    ]);
    h.advance(20);
    expect(h.snapshot.pending).toEqual([]);
  });
});
