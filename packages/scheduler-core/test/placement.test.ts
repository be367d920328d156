import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NodeBoard } from "../src/cluster-state";
import { defaultPolicy, runCycle } from "../src/index";
import { findFreePlacement, hasFreePlacement } from "../src/place-jobs";
import { fitsFree, freeNow } from "../src/cycle/fits";
import { makeCluster, makeJob, startsOf } from "@tranche/testkit";

describe("R1 placement", () => {
  it("places a single-node job on the node with the fewest free GPUs that fit it (best fit)", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(
          makeJob("six").budget("a").gpus(6).on("n01", [0, 1, 2, 3, 4, 5]).startedAt(0), // n01: 2 free
          makeJob("four").budget("a").gpus(4).on("n02", [0, 1, 2, 3]).startedAt(0), // n02: 4 free, n03: 8 free
          makeJob("p").budget("a").gpus(3),
        )
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(startsOf(r)[0]!.placement).toEqual([{ nodeId: "n02", gpuIndexes: [4, 5, 6] }]);
  });

  it("uses the lowest free GPU indexes, skipping ones in use", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 1)
        .job(makeJob("run").budget("a").gpus(2).on("n01", [0, 2]).startedAt(0), makeJob("p").budget("a").gpus(3))
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(startsOf(r)[0]!.placement).toEqual([{ nodeId: "n01", gpuIndexes: [1, 3, 4] }]);
  });

  it("gives a multi-node job whole free nodes and never a partly used one", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(makeJob("small").budget("a").gpus(1).on("n02").startedAt(0), makeJob("big").budget("a").gpus(16))
        .snapshot(),
      defaultPolicy,
      10,
    );
    const s = startsOf(r)[0]!;
    expect(s.placement.map((p) => p.nodeId)).toEqual(["n01", "n03"]);
    expect(s.placement.every((p) => p.gpuIndexes.length === 8)).toBe(true);
  });

  it("starts a gang job entirely or not at all", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(makeJob("small").budget("a").gpus(1).minRuntime("8h").on("n02").startedAt(0), makeJob("big").budget("a").gpus(16))
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(startsOf(r)).toEqual([]);
    expect(r.pending.get("big")).toBeDefined();
  });

  it("never places work on a node that is not READY, nor on an unhealthy one", () => {
    const r = runCycle(
      makeCluster()
        .node("cordoned", { state: "CORDONED" })
        .node("draining", { state: "DRAINING" })
        .node("repair", { state: "REPAIR" })
        .node("down", { state: "DOWN" })
        .node("sick", { health: "UNHEALTHY" })
        .node("ok")
        .budget("a", 1)
        .job(makeJob("p1").budget("a").gpus(8), makeJob("p2").budget("a").gpus(8))
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(startsOf(r).map((s) => s.placement[0]!.nodeId)).toEqual(["ok"]);
  });

  it("keeps whole nodes free for large jobs by packing small jobs together", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(...[1, 2, 3, 4].map((i) => makeJob(`s${i}`).budget("a").gpus(2).submittedAt(i)))
        .snapshot(),
      defaultPolicy,
      10,
    );
    expect(new Set(startsOf(r).map((s) => s.placement[0]!.nodeId))).toEqual(new Set(["n01"]));
  });

  /** Where one cycle places pending job `p`'s first slot, on `nodes` nodes shared by budgets a and b (half each). */
  const placedOn = (nodes: number, p: ReturnType<typeof makeJob>, ...running: ReturnType<typeof makeJob>[]) =>
    startsOf(
      runCycle(
        makeCluster()
          .nodes(nodes)
          .budget("a", 0.5)
          .budget("b", 0.5)
          .job(...running, p)
          .snapshot(),
        defaultPolicy,
        10,
      ),
    )[0]!.placement[0]!.nodeId;
  const run = (id: string, budget: string, node: string, gpus: number[]) =>
    makeJob(id).budget(budget).gpus(gpus.length).on(node, gpus).startedAt(0);

  it("among the best-fit nodes, puts a job where only its own budget's jobs run", () => {
    // 4 GPUs in use on n01 (budget b's) and on n02 (a's); n03 is empty. n01 and n02 both have 4 free
    // GPUs; node order alone would take n01, which runs budget b's job.
    const tied = [run("rb", "b", "n01", [0, 1, 2, 3]), run("ra", "a", "n02", [0, 1, 2, 3])];
    expect(placedOn(3, makeJob("p").budget("a").gpus(3), ...tied)).toBe("n02");
    expect(placedOn(3, makeJob("p").budget("b").gpus(3), ...tied)).toBe("n01");
    // A node shared with another budget is no better than any other: n01 runs 2 GPUs of b's and 2 of a's; n02 still.
    const shared = [run("rb", "b", "n01", [0, 1]), run("ra0", "a", "n01", [2, 3]), run("ra", "a", "n02", [0, 1, 2, 3])];
    expect(placedOn(3, makeJob("p").budget("a").gpus(3), ...shared)).toBe("n02");
  });

  it("never loosens the fit for its budget: a tighter node of another budget wins", () => {
    // n01: 2 free beside budget b's job; n02: 4 free beside a's.
    const runs = [run("rb", "b", "n01", [0, 1, 2, 3, 4, 5]), run("ra", "a", "n02", [0, 1, 2, 3])];
    expect(placedOn(2, makeJob("p").budget("a").gpus(2), ...runs)).toBe("n01");
  });
});

describe("hasFreePlacement", () => {
  // The free-GPU view both functions read, as a NodeBoard keeps it: buckets[k] = schedulable nodes
  // with exactly k free GPUs, ascending (a unit-test stand-in: no jobs, no categories).
  const board = (nodes: readonly { size: number; free: number }[]): NodeBoard => {
    const size = Math.max(...nodes.map((n) => n.size));
    const buckets: number[][] = Array.from({ length: size + 1 }, () => []);
    nodes.forEach((n, i) => n.free > 0 && buckets[n.free]!.push(i));
    return {
      size,
      buckets,
      nodes: nodes.map((n, i) => ({ id: `n${i}`, gpuCount: n.size })),
      freeIndexes: (node: number, gpus: number) => Array.from({ length: Math.min(gpus, nodes[node]!.free) }, (_, k) => k),
      largestFree: () => Math.max(0, ...nodes.map((n) => n.free)),
    } as unknown as NodeBoard;
  };
  const node = fc
    .constantFrom(2, 4, 8)
    .chain((size) => fc.record({ size: fc.constant(size), free: fc.integer({ min: 0, max: size }) }));

  it("says yes exactly when findFreePlacement places the job (any sizes, free GPUs and node filter)", () => {
    fc.assert(
      fc.property(
        fc.array(node, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (nodes, gpus, allowed) => {
          const b = board(nodes);
          const allow = (n: number): boolean => allowed[n]!;
          expect(hasFreePlacement(b, gpus, allow)).toBe(findFreePlacement(b, gpus, allow) !== null);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a budget only breaks ties: the same tightness as plain best fit, its own budget's node when one ties", () => {
    // Each node's running jobs' budgets (0-2), as the board's jobsOn lists them.
    const withJobs = fc.array(
      fc.record({ size: fc.constantFrom(2, 4, 8), free: fc.nat(8), budgets: fc.array(fc.nat(2), { maxLength: 3 }) }),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(
        withJobs,
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.nat(2),
        (raw, gpus, allowed, budget) => {
          const nodes = raw.map((n) => ({ ...n, free: Math.min(n.free, n.size) }));
          const b = board(nodes);
          (b as { jobsOn: unknown }).jobsOn = nodes.map((n) => n.budgets.map((x) => ({ budget: x })));
          const allow = (n: number): boolean => allowed[n]!;
          const plain = findFreePlacement(b, gpus, allow);
          const mine = findFreePlacement(b, gpus, allow, budget);
          expect(mine === null).toBe(plain === null);
          if (plain === null || mine === null) return;
          if (gpus > b.size) {
            expect(mine).toEqual(plain); // whole free nodes: nothing to prefer
            return;
          }
          const free = nodes[plain[0]!.node]!.free;
          expect(nodes[mine[0]!.node]!.free).toBe(free);
          const own = (i: number) => nodes[i]!.budgets.length > 0 && nodes[i]!.budgets.every((x) => x === budget);
          const tied = nodes.map((_, i) => i).filter((i) => allow(i) && nodes[i]!.free === free && nodes[i]!.size >= gpus);
          const expected = free === b.size ? plain[0]!.node : (tied.find(own) ?? plain[0]!.node);
          expect(mine[0]!.node).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("fitsFree, from freeNow's two numbers, says yes exactly when it does with every node allowed", () => {
    // What a baseline's run of waiting jobs keeps instead of the board (baselines/quiet-runs.ts).
    fc.assert(
      fc.property(fc.array(node, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 40 }), (nodes, gpus) => {
        const b = board(nodes);
        expect(fitsFree(gpus, b.size, freeNow(b))).toBe(hasFreePlacement(b, gpus, () => true));
      }),
      { numRuns: 2000 },
    );
  });
});
