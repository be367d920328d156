import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NodeBoard } from "../src/cluster-state";
import { findEarliestStart, nodeReleases } from "../src/plan-reservations";
import { defaultPolicy, runCycle } from "../src/index";
import { makeCluster, makeJob, reservesOf, startedIds } from "@tranche/testkit";
import { blocked } from "./support/scenes";

const HOUR = 3600;
const NOW = 100 * HOUR;

describe("R7 reservations and backfill", () => {
  it("reserves the nodes where the first blocked job can start earliest", () => {
    const r = runCycle(blocked(NOW).snapshot(), defaultPolicy, NOW);
    expect(r.reservations).toEqual([{ jobId: "big", gpus: 8, nodeIds: ["n01"], from: NOW + HOUR }]);
    expect(reservesOf(r)).toHaveLength(1);
    expect(r.pending.get("big")!.details.earliestStart).toBe(NOW + HOUR);
    expect(reservesOf(r)[0]!.sentence).toBe(
      "Reserved 1 node (n01) for job big, which can start there in 1 h; until then only jobs that will have finished or become interruptible by then start there.",
    );
  });

  it("lets a job that is done before the reservation backfill the reserved GPUs", () => {
    const r = runCycle(
      blocked(NOW).job(makeJob("short").budget("b").gpus(2).maxRuntime("30m").minRuntime("30m").submittedAt(5)).snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["short"]);
    const s = r.plan.find((o) => o.op === "START")!;
    expect(s.op === "START" && s.reason.code).toBe("BACKFILL");
    expect(s.op === "START" && s.reason.sentence).toMatch(
      /^Backfilled on nodes reserved for job big, which can start there in 1 h: this job will have finished or become interruptible by then\. /,
    );
  });

  it("lets a job that will be interruptible by then backfill, but not a job protected past it", () => {
    const r = runCycle(
      blocked(NOW)
        .job(
          makeJob("soon-free").budget("b").gpus(2).minRuntime("30m").submittedAt(5),
          makeJob("long").budget("b").gpus(2).minRuntime("3h").submittedAt(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["soon-free"]);
    expect(r.pending.get("long")!.code).toBe("RESERVED_FOR");
    expect(r.pending.get("long")!.details).toMatchObject({ reservedForJobId: "big", reservedFrom: NOW + HOUR });
    expect(r.pending.get("long")!.sentence).toContain("reserved for job big");
  });

  it("always lets unallocated work backfill, since it can be preempted at any moment", () => {
    const r = runCycle(blocked(NOW).job(makeJob("u").budget("b").gpus(4).unallocated()).snapshot(), defaultPolicy, NOW);
    expect(startedIds(r)).toEqual(["u"]);
  });

  it("makes no reservation when no release time is known", () => {
    // The blocker has no maxRuntime and b would not rank behind a by the margin: unknown.
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 50 * HOUR)
        .job(makeJob("run").budget("b").gpus(8).on("n01").startedAt(0), makeJob("big").budget("a").gpus(8))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations).toEqual([]);
    expect(r.pending.get("big")!.details.earliestStart).toBe(null);
  });

  it("counts maxRuntime ends as known release times", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 50 * HOUR)
        .job(
          makeJob("run")
            .budget("b")
            .gpus(8)
            .maxRuntime("3h")
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("big").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations[0]).toMatchObject({ jobId: "big", from: NOW + 2 * HOUR });
  });

  it("reserves whole nodes for a multi-node job at the time the last of them frees up", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 50 * HOUR)
        .job(
          makeJob("r1")
            .budget("b")
            .gpus(8)
            .minRuntime("2h")
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("r2")
            .budget("b")
            .gpus(8)
            .minRuntime("3h")
            .on("n02")
            .startedAt(NOW - HOUR),
          makeJob("r3")
            .budget("b")
            .gpus(8)
            .minRuntime("8h")
            .on("n03")
            .startedAt(NOW - HOUR),
          makeJob("big").budget("a").gpus(16),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations).toEqual([{ jobId: "big", gpus: 16, nodeIds: ["n01", "n02"], from: NOW + 2 * HOUR }]);
  });
});

describe("findEarliestStart", () => {
  // A stand-in board: nodes of 8 GPUs (some smaller), each holding one-GPU-slot jobs whose release
  // time the test chooses (now, later, never), and jobs of several GPUs that may share a GPU with
  // another (a job leaving in its grace and the one started in its place). What findEarliestStart
  // reads of a NodeBoard.
  const NOW_T = 1000;
  interface FakeJob {
    slots: { node: number; gpus: number[] }[];
    at: number;
  }
  interface FakeNode {
    size: number;
    releases: number[];
    shared?: { gpus: number[]; at: number }[];
    schedulable: boolean;
  }
  const boardOf = (nodes: FakeNode[]) => {
    const jobsOn = nodes.map((n, i) => [
      ...n.releases.map((at, g): FakeJob => ({ slots: [{ node: i, gpus: [g] }], at })),
      ...(n.shared ?? []).map(({ gpus, at }): FakeJob => ({ slots: [{ node: i, gpus }], at })),
    ]);
    // Free: held by no job.
    const free = nodes.map((n, i) => {
      const held = new Set(jobsOn[i]!.flatMap((j) => j.slots[0]!.gpus));
      return Array.from({ length: n.size }, (_, g) => g).filter((g) => !held.has(g)).length;
    });
    return {
      now: NOW_T,
      size: 8,
      count: nodes.length,
      schedulable: nodes.map((n) => n.schedulable),
      nodes: nodes.map((n, i) => ({ id: `n${i}`, name: `n${i}`, gpuCount: n.size })),
      jobsOn,
      free,
    } as unknown as NodeBoard;
  };
  const releaseOf = (v: unknown): number => (v as FakeJob).at;

  // The rule as written before the early exits: scan every node, then pick (reference).
  const reference = (board: NodeBoard, gpus: number, allow: (n: number) => boolean) => {
    if (gpus <= board.size) {
      let best: { nodes: number[]; from: number } | null = null;
      for (let node = 0; node < board.count; node++) {
        if (!board.schedulable[node] || board.nodes[node]!.gpuCount < gpus || !allow(node)) continue;
        const t = nodeReleases(board, node, releaseOf)[gpus - 1]!;
        if (t !== Infinity && (!best || t < best.from)) best = { nodes: [node], from: t };
      }
      return best;
    }
    if (gpus % board.size !== 0) return null;
    const need = gpus / board.size;
    const full: { node: number; t: number }[] = [];
    for (let node = 0; node < board.count; node++) {
      if (!board.schedulable[node] || board.nodes[node]!.gpuCount !== board.size || !allow(node)) continue;
      const rel = nodeReleases(board, node, releaseOf);
      const t = rel[rel.length - 1] ?? board.now;
      if (t !== Infinity) full.push({ node, t });
    }
    if (full.length < need) return null;
    full.sort((a, b) => a.t - b.t || a.node - b.node);
    const picked = full.slice(0, need);
    return { nodes: picked.map((p) => p.node).sort((a, b) => a - b), from: picked[need - 1]!.t };
  };

  const release = fc.oneof(fc.constant(NOW_T), fc.constant(NOW_T + 60), fc.constant(NOW_T + 3600), fc.constant(Infinity));
  const node = fc.record({
    size: fc.constantFrom(8, 8, 8, 4),
    releases: fc.array(release, { maxLength: 8 }),
    shared: fc.array(
      fc.record({ gpus: fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 4 }), at: release }),
      {
        maxLength: 2,
      },
    ),
    schedulable: fc.boolean(),
  });

  it("stops at the first node free now and still gives what a scan of every node gives", () => {
    fc.assert(
      fc.property(
        fc.array(node, { minLength: 1, maxLength: 14 }),
        fc.constantFrom(1, 2, 3, 4, 8, 16, 24, 12),
        fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
        (nodes, gpus, allowed) => {
          const fixed = nodes.map((n) => ({
            ...n,
            releases: n.releases.slice(0, n.size),
            shared: n.shared.map((j) => ({ ...j, gpus: j.gpus.filter((g) => g < n.size) })),
          }));
          const board = boardOf(fixed);
          const allow = (n: number): boolean => allowed[n]!;
          expect(findEarliestStart(board, gpus, releaseOf, allow)).toEqual(reference(board, gpus, allow));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
