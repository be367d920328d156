import { describe, expect, it } from "vitest";
import {
  createHarness,
  killsOf,
  makeCluster,
  makeJob,
  nodeStatesOf,
  preemptionsOf,
  reasonCode,
  startsOf,
} from "@tranche/testkit";
import { createScheduler, defaultPolicy, FIFO, NEVER, PRIORITY, runFifoCycle, runPriorityCycle } from "../src/index";

const HOUR = 3600;
const NOW = 10 * HOUR;

/** Two teams of half the cluster each (one 8-GPU node): each team's cap of not-preemptible GPUs is 4. */
const twoTeams = () => makeCluster().node("n01").budget("a", 0.5).budget("b", 0.5);

describe("the priority baseline's rules on the core's session", () => {
  it("takes pending jobs in one global order: higher priority first, then earlier submit, then id", () => {
    const r = runPriorityCycle(
      twoTeams()
        .job(
          makeJob("low").budget("a").gpus(8).unallocated().submittedAt(0),
          makeJob("high-late").budget("b").gpus(8).unallocated().priority(5).submittedAt(200),
          makeJob("high-early").budget("a").gpus(8).unallocated().priority(5).submittedAt(100),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.order).toEqual(["high-early", "high-late", "low"]);
    expect(startsOf(r).map((s) => s.jobId)).toEqual(["high-early"]);
    // The first job that waits holds the node; both waited their turn behind high-early.
    expect(r.reservations.map((x) => x.jobId)).toEqual(["high-late"]);
    expect([reasonCode(r, "high-late"), reasonCode(r, "low")]).toEqual(["ORDER", "ORDER"]);
  });

  it("runs a protected job within its team's cap not preemptible and charged, beyond the cap preemptible", () => {
    const r = runPriorityCycle(
      twoTeams()
        .job(
          makeJob("a1").budget("a").gpus(4).minRuntime("1h"),
          makeJob("a2").budget("a").gpus(4).minRuntime("1h").submittedAt(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startsOf(r).map((s) => [s.jobId, s.charged, s.lane, s.protectedUntil])).toEqual([
      ["a1", true, "ALLOCATED", NEVER],
      ["a2", false, "UNALLOCATED", NOW],
    ]);
    expect(startsOf(r)[0]!.reason.sentence).toContain("not preemptible until it ends");
  });

  it("preempts a preemptible run only for a job that outranks it, with the reason PRIORITY", () => {
    const snapshot = (pendingPriority: number) =>
      twoTeams()
        .job(
          makeJob("run")
            .budget("b")
            .gpus(8)
            .unallocated()
            .priority(1)
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("wants").budget("b").gpus(8).unallocated().priority(pendingPriority),
        )
        .snapshot();
    const higher = runPriorityCycle(snapshot(2), defaultPolicy, NOW);
    expect(preemptionsOf(higher).map((p) => [p.jobId, p.byJobId, p.reasonCode])).toEqual([["run", "wants", "PRIORITY"]]);
    expect(startsOf(higher).map((s) => [s.jobId, s.reason.code, s.startBy])).toEqual([
      ["wants", "PREEMPTED_UNALLOCATED", NOW + defaultPolicy.unallocatedGracePeriod],
    ]);
    const equal = runPriorityCycle(snapshot(1), defaultPolicy, NOW);
    expect(preemptionsOf(equal)).toEqual([]);
    expect(reasonCode(equal, "wants")).toBe("CAPACITY");
  });

  it("lets a job that will run not preemptible preempt any preemptible run, whatever its priority", () => {
    const r = runPriorityCycle(
      twoTeams()
        .job(
          makeJob("run")
            .budget("b")
            .gpus(4)
            .unallocated()
            .priority(9)
            .on("n01", [0, 1, 2, 3])
            .startedAt(NOW - HOUR),
          makeJob("other")
            .budget("b")
            .gpus(4)
            .unallocated()
            .priority(9)
            .on("n01", [4, 5, 6, 7])
            .startedAt(NOW - HOUR),
          makeJob("protected").budget("a").gpus(4).minRuntime("1h"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toHaveLength(1);
    expect(preemptionsOf(r)[0]).toMatchObject({ byJobId: "protected", reasonCode: "PRIORITY" });
    expect(startsOf(r).map((s) => [s.jobId, s.charged])).toEqual([["protected", true]]);
  });

  it("never preempts a not-preemptible run, and a drain waits for it to end", () => {
    const r = runPriorityCycle(
      makeCluster()
        .node("n01", { health: "UNHEALTHY" })
        .node("n02")
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          makeJob("np")
            .budget("a")
            .gpus(8)
            .charged()
            .on("n01")
            .startedAt(NOW - 100 * HOUR),
          makeJob("np2")
            .budget("a")
            .gpus(8)
            .charged()
            .on("n02")
            .startedAt(NOW - 100 * HOUR),
          makeJob("urgent").budget("b").gpus(8).minRuntime("1h").priority(100),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodeStatesOf(r).map((o) => [o.nodeId, o.to])).toEqual([["n01", "DRAINING"]]);
    expect(preemptionsOf(r)).toEqual([]);
    expect(startsOf(r)).toEqual([]);
  });

  it("kills a run at its maxRuntime, like fairshare, and the next job starts once it has exited (harness)", () => {
    const h = createHarness(
      twoTeams().job(makeJob("long").budget("a").gpus(8).unallocated().maxRuntime("1h").submittedAt(0)).snapshot(),
      { rules: PRIORITY, durations: { long: 10 * HOUR } },
    );
    h.cycle();
    h.submit(makeJob("next").budget("b").gpus(8).unallocated().submittedAt(60).pending());
    h.advance(HOUR);
    const r = h.cycle();
    expect(killsOf(r).map((k) => [k.jobId, k.graceUntil])).toEqual([["long", HOUR + defaultPolicy.unallocatedGracePeriod]]);
    expect(startsOf(r).map((s) => [s.jobId, s.startBy, s.afterExitOf])).toEqual([
      ["next", HOUR + defaultPolicy.unallocatedGracePeriod, ["long"]],
    ]);
    h.advance(defaultPolicy.unallocatedGracePeriod).cycle();
    expect(h.finished.map((f) => f.jobId)).not.toContain("long");
  });
});

describe("the fifo baseline's rules on the core's session", () => {
  it("starts in submit order, never preempts, and lets later small jobs backfill around the first blocked one", () => {
    const r = runFifoCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          makeJob("x")
            .budget("a")
            .gpus(6)
            .unallocated()
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("y")
            .budget("a")
            .gpus(6)
            .unallocated()
            .on("n02")
            .startedAt(NOW - HOUR),
          makeJob("big").budget("b").gpus(8).submittedAt(1),
          makeJob("small").budget("a").gpus(2).submittedAt(2),
          makeJob("small2").budget("a").gpus(2).submittedAt(3),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.order).toEqual(["big", "small", "small2"]);
    expect(preemptionsOf(r)).toEqual([]);
    expect(r.reservations.map((x) => [x.jobId, x.nodeIds])).toEqual([["big", ["n01"]]]);
    expect(startsOf(r).map((s) => [s.jobId, s.placement[0]!.nodeId, s.charged])).toEqual([["small", "n02", true]]);
    expect(reasonCode(r, "small2")).toBe("RESERVED_FOR");
  });

  it("kills a run at its maxRuntime with its grace, never requeued", () => {
    const r = runFifoCycle(
      twoTeams()
        .job(
          makeJob("over")
            .budget("a")
            .gpus(2)
            .maxRuntime("1h")
            .on("n01")
            .startedAt(NOW - HOUR),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(killsOf(r).map((k) => [k.jobId, k.graceUntil])).toEqual([["over", NOW + defaultPolicy.gracePeriod]]);
    expect(r.stats.killed).toBe(1);
  });

  it("gives the same results kept between cycles as stateless (createScheduler with the rule set)", () => {
    const snap = twoTeams()
      .job(
        makeJob("r")
          .budget("a")
          .gpus(4)
          .on("n01")
          .startedAt(NOW - HOUR),
        makeJob("p").budget("b").gpus(8),
      )
      .snapshot();
    const kept = createScheduler(defaultPolicy, FIFO);
    for (const t of [NOW, NOW + 30, NOW + 60])
      expect(JSON.stringify(kept.runCycle(snap, t))).toBe(JSON.stringify(runFifoCycle(snap, defaultPolicy, t)));
  });
});
