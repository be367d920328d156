import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy, planNodeStates, runCycle, type CycleResult } from "../src/index";
import { makeCluster, makeJob, reservesOf, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

const nodesOf = (r: CycleResult, id: string): string[] =>
  startsOf(r)
    .filter((s) => s.jobId === id)
    .flatMap((s) => s.placement.map((p) => p.nodeId));

/** Two 8-GPU nodes; n01 plans maintenance in `inSeconds`, n02 holds `busy` GPUs of a protected job. */
function cluster(inSeconds: number, busy = 8) {
  return makeCluster()
    .node("n01", { drainAt: NOW + inSeconds, drainReason: "driver 560", drainPlannedBy: "Olga" })
    .node("n02")
    .budget("a", 1)
    .job(
      makeJob("busy")
        .budget("a")
        .gpus(busy)
        .minRuntime("8h")
        .on("n02")
        .startedAt(NOW - 60),
    );
}

describe("planned drains (R8: an operator drains a node at a time)", () => {
  it("a job whose minimum would cross the plan does not start on that node, and says why", () => {
    const r = runCycle(
      cluster(3 * HOUR)
        .job(makeJob("long").budget("a").gpus(4).minRuntime("4h"))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "long")).toEqual([]);
    const reason = r.pending.get("long")!;
    expect(reason.code).toBe("PLANNED_DRAIN");
    expect(reason.details.drainNode).toBe("n01");
    expect(reason.details.drainAt).toBe(NOW + 3 * HOUR);
    expect(reason.sentence).toMatch(
      /^Node n01 goes into maintenance in 3 h, and this job may not be cut short for 4 h after it starts/,
    );
  });

  it("a job whose minimum ends by the plan starts there, and so does unallocated work", () => {
    const r = runCycle(
      cluster(3 * HOUR)
        .job(makeJob("short").budget("a").gpus(4).minRuntime("2h"), makeJob("free").budget("a").gpus(4).unallocated())
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "short")).toEqual(["n01"]);
    expect(nodesOf(r, "free")).toEqual(["n01"]);
  });

  it("a job that would cross goes to another node with room", () => {
    const r = runCycle(
      cluster(3 * HOUR, 0)
        .job(makeJob("long").budget("a").gpus(4).minRuntime("4h"))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "long")).toEqual(["n02"]);
  });

  it("a debug-lane job counts its whole run (15 min at most), not its minimum", () => {
    const debug = (id: string) => makeJob(id).budget("a").gpus(1).minRuntime("5m").maxRuntime("15m");
    const crossing = runCycle(
      cluster(10 * 60)
        .job(debug("d"))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(crossing, "d")).toEqual([]);
    expect(crossing.pending.get("d")!.code).toBe("PLANNED_DRAIN");
    const fitting = runCycle(
      cluster(20 * 60)
        .job(debug("d"))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(fitting, "d")).toEqual(["n01"]);
    expect(startsOf(fitting).find((s) => s.jobId === "d")!.lane).toBe("DEBUG");
  });

  it("a start that waits for a leaving job counts from its latest start", () => {
    // n01's GPUs are held by an unallocated job an allocated one preempts (grace 10 s): starting at
    // NOW + 10 s, a minimum of exactly the time left crosses by those 10 s.
    const snap = cluster(2 * HOUR)
      .job(
        makeJob("u")
          .budget("a")
          .gpus(8)
          .unallocated()
          .on("n01")
          .startedAt(NOW - 60),
        makeJob("p")
          .budget("a")
          .gpus(8)
          .minRuntime(2 * HOUR),
      )
      .snapshot();
    const r = runCycle(snap, defaultPolicy, NOW);
    expect(nodesOf(r, "p")).toEqual([]);
    const ok = runCycle(
      cluster(2 * HOUR)
        .job(
          makeJob("u")
            .budget("a")
            .gpus(8)
            .unallocated()
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("p")
            .budget("a")
            .gpus(8)
            .minRuntime(2 * HOUR - 10),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(ok, "p")).toEqual(["n01"]);
  });

  it("a reservation never uses a node whose plan its start plus minimum would cross", () => {
    // n01 frees in 1 h, n02 in 2 h; the job's 2 h minimum from n01's 1 h crosses n01's plan at 2.5 h.
    const snap = makeCluster()
      .node("n01", { drainAt: NOW + 2.5 * HOUR, drainReason: "driver 560", drainPlannedBy: "Olga" })
      .node("n02")
      .budget("a", 1)
      .job(
        makeJob("r1")
          .budget("a")
          .gpus(8)
          .minRuntime("2h")
          .maxRuntime("2h")
          .on("n01")
          .startedAt(NOW - HOUR),
        makeJob("r2")
          .budget("a")
          .gpus(8)
          .minRuntime("3h")
          .maxRuntime("3h")
          .on("n02")
          .startedAt(NOW - HOUR),
        makeJob("big").budget("a").gpus(8).minRuntime("2h"),
      )
      .snapshot();
    const r = runCycle(snap, defaultPolicy, NOW);
    const reserve = reservesOf(r).find((o) => o.jobId === "big")!;
    expect(reserve.nodeIds).toEqual(["n02"]);
    expect(reserve.from).toBe(NOW + 2 * HOUR);
    // Without the plan the same job reserves n01 from 1 h.
    const plain = runCycle({ ...snap, nodes: snap.nodes.map((n) => ({ ...n, drainAt: null })) }, defaultPolicy, NOW);
    expect(reservesOf(plain).find((o) => o.jobId === "big")!.nodeIds).toEqual(["n01"]);
  });

  it("at its time the node drains with the operator's words, and R8 preempts what may leave", () => {
    const snap = cluster(-1)
      .job(
        makeJob("u")
          .budget("a")
          .gpus(2)
          .unallocated()
          .on("n01")
          .startedAt(NOW - 60),
      )
      .snapshot();
    const { ops } = planNodeStates(snap.nodes, defaultPolicy, NOW);
    expect(ops).toHaveLength(1);
    expect(ops[0]).toMatchObject({ nodeId: "n01", from: "READY", to: "DRAINING", reason: "PLANNED_DRAIN" });
    expect(ops[0]!.sentence).toMatch(/^Maintenance planned by Olga: driver 560\. Node n01 is draining/);
    const r = runCycle(snap, defaultPolicy, NOW);
    expect(r.plan.some((o) => o.op === "PREEMPT" && o.jobId === "u" && o.reasonCode === "DRAIN")).toBe(true);
  });

  it("a node already draining, in repair or down is not moved by its plan", () => {
    for (const state of ["DRAINING", "REPAIR", "DOWN"] as const) {
      const snap = makeCluster()
        .node("n01", { state, drainAt: NOW - 1, lastHeartbeatAt: NOW })
        .budget("a", 1)
        .snapshot();
      expect(planNodeStates(snap.nodes, defaultPolicy, NOW).ops.filter((o) => o.reason === "PLANNED_DRAIN")).toEqual([]);
    }
  });

  it("a kept scheduler decides as runCycle while a plan appears, holds and goes", () => {
    const withPlan = cluster(3 * HOUR)
      .job(makeJob("long").budget("a").gpus(4).minRuntime("4h"), makeJob("short").budget("a").gpus(2).minRuntime("1h"))
      .snapshot();
    const without = { ...withPlan, nodes: withPlan.nodes.map((n) => ({ ...n, drainAt: null })) };
    const kept = createScheduler(defaultPolicy);
    for (const [snap, t] of [
      [without, NOW],
      [without, NOW + 1],
      [withPlan, NOW + 2],
      [withPlan, NOW + 3],
      [without, NOW + 4],
    ] as const) {
      const a = kept.runCycle(snap, t);
      const b = runCycle(snap, defaultPolicy, t);
      expect(a.plan).toEqual(b.plan);
      expect([...a.pending.entries()]).toEqual([...b.pending.entries()]);
    }
  });
});
