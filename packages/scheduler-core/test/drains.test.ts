import { describe, expect, it } from "vitest";
import { defaultPolicy, runCycle } from "../src/index";
import { planNodeStates } from "../src/plan-drains";
import { lostOf, makeCluster, makeJob, nodeStatesOf, preemptionsOf, startedIds } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

describe("R8 drain", () => {
  it("moves a node that reports itself unhealthy to DRAINING and starts nothing there", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { health: "UNHEALTHY" })
        .node("n02", { state: "CORDONED" }) // keeps the budget's entitlement above zero
        .budget("a", 1)
        .job(
          makeJob("run")
            .budget("a")
            .gpus(4)
            .minRuntime("8h")
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodeStatesOf(r)).toMatchObject([{ nodeId: "n01", from: "READY", to: "DRAINING", reason: "UNHEALTHY_REPORT" }]);
    expect(startedIds(r)).toEqual([]);
    expect(preemptionsOf(r)).toEqual([]); // the job is protected
  });

  it("preempts unallocated and interruptible jobs on a draining node but waits for protected ones", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { state: "DRAINING" })
        .budget("a", 1)
        .job(
          makeJob("free")
            .budget("a")
            .unallocated()
            .gpus(2)
            .on("n01", [0, 1])
            .startedAt(NOW - 60),
          makeJob("old")
            .budget("a")
            .gpus(2)
            .minRuntime("1h")
            .on("n01", [2, 3])
            .startedAt(NOW - 2 * HOUR),
          makeJob("young")
            .budget("a")
            .gpus(2)
            .minRuntime("1h")
            .on("n01", [4, 5])
            .startedAt(NOW - 60),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r).map((p) => [p.jobId, p.reasonCode, p.byJobId, p.gracePeriod])).toEqual([
      ["free", "DRAIN", null, 10],
      ["old", "DRAIN", null, 120],
    ]);
    expect(nodeStatesOf(r)).toEqual([]);
  });

  it("moves an empty draining node to REPAIR and fires the repair hook", () => {
    const r = runCycle(makeCluster().node("n01", { state: "DRAINING" }).budget("a", 1).snapshot(), defaultPolicy, NOW);
    expect(nodeStatesOf(r)).toMatchObject([
      { nodeId: "n01", from: "DRAINING", to: "REPAIR", reason: "DRAINED", runRepairHook: true },
    ]);
  });

  it("waits for jobs that are already leaving before declaring the node empty", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { state: "DRAINING" })
        .budget("a", 1)
        .job(
          makeJob("leaving")
            .budget("a")
            .gpus(2)
            .on("n01")
            .startedAt(0)
            .stopping(NOW + 30),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodeStatesOf(r)).toEqual([]);
    expect(preemptionsOf(r)).toEqual([]);
  });
});

describe("R9 failure", () => {
  it("marks a node DOWN after the heartbeat timeout plus the fence grace and its jobs lost, requeueing resumable ones", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { lastHeartbeatAt: NOW - 41 })
        .node("n02", { lastHeartbeatAt: NOW - 40 })
        .budget("a", 1)
        .job(
          makeJob("res")
            .budget("a")
            .gpus(4)
            .minRuntime("8h")
            .on("n01", [0, 1, 2, 3])
            .startedAt(NOW - 60),
          makeJob("once")
            .budget("a")
            .gpus(4)
            .resumable(false)
            .on("n01", [4, 5, 6, 7])
            .startedAt(NOW - 60),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodeStatesOf(r)).toMatchObject([{ nodeId: "n01", to: "DOWN", reason: "HEARTBEAT_TIMEOUT" }]);
    expect(lostOf(r).map((l) => [l.jobId, l.requeue, l.charged])).toEqual([
      ["once", false, true],
      ["res", true, true],
    ]);
  });

  it("ends even a protected job when its node goes down, and frees its GPUs elsewhere", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { lastHeartbeatAt: 0 })
        .node("n02", { lastHeartbeatAt: NOW })
        .budget("a", 1)
        .job(
          makeJob("multi")
            .budget("a")
            .gpus(16)
            .minRuntime("8h")
            .onNodes(["n01", "n02"])
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(lostOf(r).map((l) => [l.jobId, l.nodeIds])).toEqual([["multi", ["n01"]]]);
    const s = r.plan.find((o) => o.op === "START");
    expect(s).toMatchObject({ jobId: "p", afterExitOf: ["multi"], placement: [{ nodeId: "n02" }] });
  });

  it("reports jobs still listed on a node that is already DOWN as lost", () => {
    const r = runCycle(
      makeCluster()
        .node("n01", { state: "DOWN" })
        .budget("a", 1)
        .job(makeJob("ghost").budget("a").gpus(1).on("n01").startedAt(0))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(lostOf(r).map((l) => l.jobId)).toEqual(["ghost"]);
    expect(nodeStatesOf(r)).toEqual([]);
  });

  it("a node never heard from times out like a silent one, counted from when it entered its state", () => {
    const nodes = (stateChangedAt: number | null | undefined) =>
      [
        { id: "n01", name: "n01", gpuCount: 8, state: "READY", health: "HEALTHY", lastHeartbeatAt: null, stateChangedAt },
      ] as const;
    const at = (since: number | null | undefined) => planNodeStates(nodes(since), defaultPolicy, NOW).ops;
    expect(at(NOW - 41)).toMatchObject([{ nodeId: "n01", from: "READY", to: "DOWN", reason: "HEARTBEAT_TIMEOUT" }]);
    expect(at(NOW - 41)[0]!.sentence).toBe(
      "Node n01 has sent no heartbeat in the 41 s since it became ready (timeout 30 s plus 10 s of fence grace): it is down and its jobs are lost.",
    );
    expect(at(NOW - 40)).toEqual([]);
    // Without a state time (the simulator's nodes) a node never heard from keeps its state.
    expect(at(undefined)).toEqual([]);
    expect(at(null)).toEqual([]);
  });

  it("waits the fence grace after the heartbeat timeout: the node's agent is still killing its jobs", () => {
    const node = { id: "n01", name: "n01", gpuCount: 8, state: "READY", health: "HEALTHY", lastHeartbeatAt: NOW - 35 } as const;
    expect(planNodeStates([node], defaultPolicy, NOW).ops).toEqual([]);
    expect(planNodeStates([node], { heartbeatTimeout: 30, fenceGrace: 4 }, NOW).ops).toMatchObject([{ to: "DOWN" }]);
  });
});
