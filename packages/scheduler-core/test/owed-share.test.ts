import { EntryColumns } from "../src/entry-columns";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FairTree } from "../src/fair-tree";
import { PendingQueues, pendingEntry } from "../src/order-pending";
import { defaultPolicy, runCycle } from "../src/index";
import type { BudgetTreeNode, JobLane, PendingJob } from "../src/types";
import { makeCluster, makeJob, preemptedIds, startedIds, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

/** lab -> d0, d1 -> three leaves each, with the given allocations (ppm) and usage. */
function tree(c: { div: number; leaf: number[]; usage: number[] }): BudgetTreeNode[] {
  const nodes: BudgetTreeNode[] = [
    { id: "lab", name: "lab", parentId: null, allocationPpm: 1_000_000, usageGpuSeconds: 0, entitlementGpuSeconds: 600 },
    { id: "d0", name: "d0", parentId: "lab", allocationPpm: c.div, usageGpuSeconds: 0, entitlementGpuSeconds: 300 },
    { id: "d1", name: "d1", parentId: "lab", allocationPpm: 1_000_000 - c.div, usageGpuSeconds: 0, entitlementGpuSeconds: 300 },
  ];
  for (let i = 0; i < 6; i++)
    nodes.push({
      id: `p${i}`,
      name: `p${i}`,
      parentId: i < 3 ? "d0" : "d1",
      allocationPpm: c.leaf[i]!,
      usageGpuSeconds: c.usage[i]!,
      entitlementGpuSeconds: 100,
    });
  return nodes;
}

/**
 * R6's pick: a (owed 16 GPUs of 32) holds 8 and waits for 8 more; b holds three interruptible 8-GPU
 * jobs, one a node in the given order, started and checkpointed when given. Which b job is preempted?
 */
function victimAmong(startedAt: Record<string, number>, checkpointAt: Record<string, number>): string[] {
  const snapshot = makeCluster()
    .nodes(4)
    .budget("a", 0.5)
    .budget("b", 0.5)
    .job(
      makeJob("a-r").budget("a").gpus(8).minRuntime("1h").on("n04").startedAt(0),
      ...Object.entries(startedAt).map(([id, at], i) =>
        makeJob(id)
          .budget("b")
          .gpus(8)
          .minRuntime("1h")
          .on(`n0${i + 1}`)
          .startedAt(at),
      ),
      makeJob("a-1").budget("a").gpus(8),
    )
    .snapshot();
  for (const j of snapshot.running) if (checkpointAt[j.id] !== undefined) j.lastCheckpointAt = checkpointAt[j.id]!;
  return preemptedIds(runCycle(snapshot, defaultPolicy, NOW));
}

const arbOrder = fc.record({
  div: fc.integer({ min: 50_000, max: 950_000 }),
  leaf: fc.array(fc.integer({ min: 10_000, max: 330_000 }), { minLength: 6, maxLength: 6 }),
  usage: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 6, maxLength: 6 }),
  held: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 6, maxLength: 6 }),
  jobs: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }),
});

describe("Owed share first (R2, R4)", () => {
  it("never takes a job of a budget at or above its owed share while a budget under its own share has pending work", () => {
    fc.assert(
      fc.property(arbOrder, (c) => {
        const t = new FairTree(tree(c), HOUR);
        t.capacity = 100;
        c.held.forEach((g, i) => t.addHeld(t.indexOf(`p${i}`)!, g));
        const entries = c.jobs.map((leaf, k) =>
          pendingEntry(
            { id: `j${k}`, priority: 0, submittedAt: k } as PendingJob,
            t.indexOf(`p${leaf}`)!,
            "ALLOCATED" as JobLane,
          ),
        );
        const queues = new PendingQueues(t, entries, null, EntryColumns.of);
        const left = new Map<number, number>();
        for (const e of entries) left.set(e.budget, (left.get(e.budget) ?? 0) + 1);
        for (let e = queues.next("ALLOCATED"); e !== null; e = queues.next("ALLOCATED")) {
          for (const [other, n] of left) {
            if (n === 0 || other === e.budget) continue;
            // Whatever the tree's shape, and whatever the divisions hold: the leaves' shares decide.
            expect(t.underShare(other) && !t.underShare(e.budget)).toBe(false);
          }
          left.set(e.budget, left.get(e.budget)! - 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a budget under its owed share goes before surplus work of another division that is itself under its share", () => {
    // d0 (half the lab) holds 6 of its 8 GPUs, all of them in p0 (owed 2.7): p0's work is surplus.
    // p3 in d1 holds 0 of its owed 2.7: it goes first although d0 is the division further below its share.
    const t = new FairTree(
      tree({ div: 500_000, leaf: [333_333, 333_333, 333_333, 333_333, 333_333, 333_333], usage: [0, 0, 0, 500, 0, 0] }),
      HOUR,
    );
    t.capacity = 16;
    t.addHeld(t.indexOf("p0")!, 6);
    t.addHeld(t.indexOf("p4")!, 8);
    const queues = new PendingQueues(
      t,
      [
        pendingEntry({ id: "p0-job", priority: 0, submittedAt: 0 } as PendingJob, t.indexOf("p0")!, "ALLOCATED"),
        pendingEntry({ id: "p3-job", priority: 0, submittedAt: 1 } as PendingJob, t.indexOf("p3")!, "ALLOCATED"),
      ],
      null,
      EntryColumns.of,
    );
    expect(queues.next("ALLOCATED")!.job.id).toBe("p3-job");
    expect(queues.next("ALLOCATED")!.job.id).toBe("p0-job");
  });

  it("a budget under its owed share goes first even when a budget above its share has the lower 7-day ratio", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 300 * HOUR)
        .usage("b", 1 * HOUR)
        .job(
          makeJob("b-run")
            .budget("b")
            .gpus(6)
            .minRuntime("1h")
            .on("n01", [0, 1, 2, 3, 4, 5])
            .startedAt(NOW - 60),
          makeJob("a-1").budget("a").gpus(2),
          makeJob("b-1").budget("b").gpus(2),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["a-1"]);
    expect(r.order.slice(0, 2)).toEqual(["a-1", "b-1"]);
  });

  it("a budget under its owed share preempts interruptible work of a budget that keeps its share without it", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          makeJob("b-1").budget("b").gpus(8).minRuntime("1h").on("n01").startedAt(0),
          makeJob("b-2").budget("b").gpus(8).minRuntime("1h").on("n02").startedAt(HOUR),
          makeJob("a-1").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r)).toHaveLength(1);
    expect(startedIds(r)).toEqual(["a-1"]);
  });

  it("never preempts a victim whose budget would then drop below its own owed share (it would win the GPUs back)", () => {
    const snapshot = makeCluster()
      .nodes(2)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .job(
        // b holds 12 of its 8 owed GPUs: losing the 8-GPU job would leave it at 4, losing the 4-GPU one at 8.
        makeJob("b-big").budget("b").gpus(8).minRuntime("1h").on("n01").startedAt(0),
        makeJob("b-small").budget("b").gpus(4).minRuntime("1h").on("n02", [0, 1, 2, 3]).startedAt(0),
        makeJob("a-1").budget("a").gpus(8),
      )
      .snapshot();
    // The big one checkpointed a minute ago: without the guard it would be the cheaper victim.
    snapshot.running.find((j) => j.id === "b-big")!.lastCheckpointAt = NOW - 60;
    const r = runCycle(snapshot, defaultPolicy, NOW);
    expect(preemptedIds(r)).toEqual(["b-small"]);
  });

  it("does not preempt for a budget within the margin of its owed share: ordinary turnover serves it", () => {
    const r = runCycle(
      makeCluster()
        .nodes(4)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          // a holds 15 of its 16 owed GPUs (above 90% of them); b holds 17.
          makeJob("a-r1").budget("a").gpus(8).minRuntime("1h").on("n01").startedAt(0),
          makeJob("a-r2").budget("a").gpus(7).minRuntime("1h").on("n02", [0, 1, 2, 3, 4, 5, 6]).startedAt(0),
          makeJob("b-r1").budget("b").gpus(8).minRuntime("1h").on("n03").startedAt(0),
          makeJob("b-r2").budget("b").gpus(8).minRuntime("1h").on("n04").startedAt(0),
          makeJob("b-r3").budget("b").gpus(1).minRuntime("1h").on("n02", [7]).startedAt(0),
          makeJob("a-1").budget("a").gpus(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptedIds(r)).toEqual([]);
  });

  it("takes the victim that checkpointed most recently among those that qualify", () => {
    const checkpointAt = { "b-1": NOW - 1700, "b-2": NOW - 100, "b-3": NOW - 900 };
    expect(victimAmong({ "b-1": 0, "b-2": 0, "b-3": 0 }, checkpointAt)).toEqual(["b-2"]);
  });

  it("takes the youngest run among victims that would lose alike, and weighs a run's age at a quarter of lost work", () => {
    // They started 9 h, 3 h and 6 h ago; each would lose 10 minutes since its checkpoint unless said.
    const startedAt = { "b-old": NOW - 9 * HOUR, "b-young": NOW - 3 * HOUR, "b-mid": NOW - 6 * HOUR };
    const checkpointAgo = (ago: Record<string, number>) =>
      Object.fromEntries(Object.keys(startedAt).map((id) => [id, NOW - (ago[id] ?? 600)]));
    expect(victimAmong(startedAt, checkpointAgo({}))).toEqual(["b-young"]);
    // 3 h more of run weigh 45 min of lost work: b-mid, 50 min less at risk than b-young, goes first...
    expect(victimAmong(startedAt, checkpointAgo({ "b-young": 3600 }))).toEqual(["b-mid"]);
    // ...but not for 40 min less.
    expect(victimAmong(startedAt, checkpointAgo({ "b-young": 3000 }))).toEqual(["b-young"]);
  });

  it("work outside the debug lane leaves the debug reserve free, and a debug job starts on it at once", () => {
    // 13 nodes = 104 GPUs: a 1% reserve is 1 GPU. Twelve nodes are held by protected work.
    const reserve = { ...defaultPolicy, debugReserve: 0.01 };
    const running = Array.from({ length: 12 }, (_, i) =>
      makeJob(`a-r${i}`)
        .budget("a")
        .gpus(8)
        .minRuntime("2h")
        .on(`n${String(i + 1).padStart(2, "0")}`)
        .startedAt(NOW - 60),
    );
    const cluster = () =>
      makeCluster()
        .nodes(13)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(...running, makeJob("b-8").budget("b").gpus(8));
    const held = runCycle(cluster().snapshot(), reserve, NOW);
    expect(startedIds(held)).toEqual([]);
    const noReserve = runCycle(cluster().snapshot(), { ...defaultPolicy, debugReserve: 0 }, NOW);
    expect(startedIds(noReserve)).toEqual(["b-8"]);
    const withDebug = runCycle(cluster().job(makeJob("dbg").budget("b").debug().gpus(2).user("ann")).snapshot(), reserve, NOW);
    expect(startedIds(withDebug)).toEqual(["dbg"]);
  });

  it("keeps the reserve on the emptiest nodes, where an 8-GPU debug job fits, not as free GPUs anywhere", () => {
    // 13 nodes = 104 GPUs, an 8% reserve = 8 GPUs = the one emptiest node. n11 and n12 have 4 free
    // each, n13 all 8: 16 free in all.
    const reserve = { ...defaultPolicy, debugReserve: 0.08 };
    const protectedJob = (id: string, node: string, gpus: number, on?: number[]) =>
      makeJob(id)
        .budget("a")
        .gpus(gpus)
        .minRuntime("2h")
        .on(node, on)
        .startedAt(NOW - 60);
    const cluster = (...pending: ReturnType<typeof makeJob>[]) =>
      makeCluster()
        .nodes(13)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .job(
          ...Array.from({ length: 10 }, (_, i) => protectedJob(`a-r${i}`, `n${String(i + 1).padStart(2, "0")}`, 8)),
          protectedJob("a-11", "n11", 4, [0, 1, 2, 3]),
          protectedJob("a-12", "n12", 4, [0, 1, 2, 3]),
          ...pending,
        );
    // 16 - 5 = 11 free GPUs would be left, but no node with 8: refused.
    const five = runCycle(cluster(makeJob("b-5").budget("b").gpus(5)).snapshot(), reserve, NOW);
    expect(startedIds(five)).toEqual([]);
    expect(five.pending.get("b-5")).toMatchObject({ code: "DEBUG_RESERVE", details: { debugReserveGpus: 8 } });
    // A 4-GPU job fits in a fragment and leaves n13 whole: it starts there.
    const four = runCycle(cluster(makeJob("b-4").budget("b").gpus(4)).snapshot(), reserve, NOW);
    expect(startsOf(four).map((s) => s.placement[0]!.nodeId)).toEqual(["n11"]);
    const debug = runCycle(cluster(makeJob("dbg").budget("b").debug().gpus(8).user("ann")).snapshot(), reserve, NOW);
    expect(startsOf(debug).map((s) => s.placement[0]!.nodeId)).toEqual(["n13"]);
  });

  it("the reserve is a share of the GPUs that may take work: cordoning most of a pool does not close it", () => {
    // 13 nodes = 104 GPUs, 12 cordoned: an 8% reserve of the healthy GPUs is 8, the one open node's all.
    // Of the 8 open GPUs it is 0, so a 4-GPU job starts on the open node.
    const reserve = { ...defaultPolicy, debugReserve: 0.08 };
    let cluster = makeCluster().budget("a", 0.5).budget("b", 0.5);
    for (let i = 1; i <= 12; i++) cluster = cluster.node(`n${String(i).padStart(2, "0")}`, { state: "CORDONED" });
    const result = runCycle(cluster.node("n13").job(makeJob("b-4").budget("b").gpus(4)).snapshot(), reserve, NOW);
    expect(startsOf(result).map((s) => s.placement[0]!.nodeId)).toEqual(["n13"]);
  });

  it("the reserve yields to a job of several nodes whose reservation is due: one that needs the whole cluster starts", () => {
    // 8 nodes = 64 GPUs: the 2% default reserve is 1 GPU, so 64 GPUs never fit beside it.
    const r = runCycle(
      makeCluster().nodes(8).budget("a", 1).job(makeJob("all").budget("a").gpus(64)).snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["all"]);
    // A one-node job that would take the last GPU of the reserve waits, even at the head of the queue.
    const one = runCycle(
      makeCluster()
        .nodes(8)
        .budget("a", 1)
        .job(
          ...Array.from({ length: 7 }, (_, i) =>
            makeJob(`r${i}`)
              .budget("a")
              .gpus(8)
              .minRuntime("2h")
              .on(`n0${i + 1}`)
              .startedAt(NOW - 60),
          ),
          makeJob("last").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(one)).toEqual([]);
  });
});
