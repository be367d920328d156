import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  createScheduler,
  defaultPolicy,
  resolvePolicy,
  runCycle,
  runFifoCycle,
  runPriorityCycle,
  type ClusterSnapshot,
  type CycleResult,
  type PendingJob,
} from "../src/index";
import { makeCluster, makeJob, preemptionsOf, reservesOf, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

const nodesOf = (r: CycleResult, id: string): string[] =>
  startsOf(r)
    .filter((s) => s.jobId === id)
    .flatMap((s) => s.placement.map((p) => p.nodeId));

describe("node constraints (--nodelist / --exclude)", () => {
  it("places a job only on the nodes it names, even where best fit would pick another", () => {
    // Best fit alone puts a 2-GPU job on n01 (2 free); it names n03.
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(makeJob("busy").budget("a").gpus(6).on("n01").startedAt(0), makeJob("p").budget("a").gpus(2).onlyNodes("n03"))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "p")).toEqual(["n03"]);
  });

  it("never places a job on a node it excludes", () => {
    const r = runCycle(
      makeCluster().nodes(2).budget("a", 1).job(makeJob("p").budget("a").gpus(8).excludeNodes("n01")).snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "p")).toEqual(["n02"]);
  });

  it("waits with NODE_CONSTRAINT when its nodes are full and another node would fit it", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("busy")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(4).onlyNodes("n01"),
          // Of the same shape and budget right behind it: no constraint, so it starts on n02.
          makeJob("q").budget("a").gpus(4).submittedAt(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "p")).toEqual([]);
    expect(nodesOf(r, "q")).toEqual(["n02"]);
    const reason = r.pending.get("p")!;
    expect(reason.code).toBe("NODE_CONSTRAINT");
    expect(reason.sentence).toMatch(/^It may run only on the nodes it was submitted for/);
  });

  it("a constrained job's outcome is not shared with a later job of its shape and budget", () => {
    // Many unconstrained jobs of one kind behind a blocked constrained one: the shared-outcome
    // shortcut (blocked-memo.ts) must not tell them the constrained job's outcome.
    // Unallocated work: its tries search no victims, so a blocked one's outcome is kept for its kind.
    const jobs = [makeJob("c").budget("a").unallocated().gpus(2).onlyNodes("n01").submittedAt(0)];
    for (let i = 0; i < 5; i++)
      jobs.push(
        makeJob(`u${i}`)
          .budget("a")
          .unallocated()
          .gpus(2)
          .submittedAt(10 + i),
      );
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("busy")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .on("n01")
            .startedAt(NOW - 60),
          ...jobs,
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "c")).toEqual([]);
    expect(startsOf(r).map((s) => s.jobId)).toEqual(["u0", "u1", "u2", "u3"]);
  });

  it("a constrained job blocked behind one of its shape still starts on its own node", () => {
    // Two constrained jobs of one shape: the first, kept off n03, fails; the second, allowed only n03,
    // must still be tried, not told the first one's outcome.
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(
          makeJob("half")
            .budget("a")
            .gpus(4)
            .minRuntime("4h")
            .on("n01", [0, 1, 2, 3])
            .startedAt(NOW - 60),
          makeJob("full")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .on("n02")
            .startedAt(NOW - 60),
          makeJob("u").budget("a").unallocated().gpus(8).excludeNodes("n03").submittedAt(0),
          makeJob("c").budget("a").unallocated().gpus(8).onlyNodes("n03").submittedAt(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(nodesOf(r, "u")).toEqual([]);
    expect(nodesOf(r, "c")).toEqual(["n03"]);
  });

  it("preempts for a constrained job only on its allowed nodes", () => {
    // Unallocated work on both nodes; the allocated job may only use n02, so only n02's victim goes,
    // although the victim search would otherwise pick n01's (the cheaper: younger, fewer GPUs lost).
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("u1")
            .budget("a")
            .unallocated()
            .gpus(8)
            .on("n01")
            .startedAt(NOW - 60),
          makeJob("u2").budget("a").unallocated().gpus(8).on("n02").startedAt(0),
          makeJob("p").budget("a").gpus(8).onlyNodes("n02"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r).map((p) => p.jobId)).toEqual(["u2"]);
    expect(nodesOf(r, "p")).toEqual(["n02"]);
  });

  it("does not preempt anywhere for a constrained job that its nodes cannot take", () => {
    const r = runCycle(
      makeCluster()
        .nodes(2)
        .budget("a", 1)
        .job(
          makeJob("u1").budget("a").unallocated().gpus(8).on("n01").startedAt(0),
          makeJob("prot")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .on("n02")
            .startedAt(NOW - 60),
          makeJob("p").budget("a").gpus(8).onlyNodes("n02"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(preemptionsOf(r)).toEqual([]);
    expect(nodesOf(r, "p")).toEqual([]);
  });

  it("reserves only nodes the job may use (R7)", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(
          makeJob("r1")
            .budget("a")
            .gpus(8)
            .minRuntime("1h")
            .maxRuntime("1h")
            .on("n01")
            .startedAt(NOW - 600),
          makeJob("r2")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .maxRuntime("4h")
            .on("n02")
            .startedAt(NOW - 600),
          makeJob("r3")
            .budget("a")
            .gpus(8)
            .minRuntime("4h")
            .maxRuntime("4h")
            .on("n03")
            .startedAt(NOW - 600),
          makeJob("p").budget("a").gpus(8).excludeNodes("n01"),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    const res = reservesOf(r).filter((o) => o.jobId === "p");
    expect(res).toHaveLength(1);
    expect(res[0]!.nodeIds).not.toContain("n01");
  });
});

describe("property: no decision places a job on a node it may not use", () => {
  const arb = fc.record({
    nodes: fc.integer({ min: 1, max: 5 }),
    running: fc.array(
      fc.record({
        node: fc.nat(),
        gpus: fc.constantFrom(1, 2, 4, 8),
        min: fc.constantFrom(0, 0, 600, 4 * HOUR),
        age: fc.nat(HOUR),
      }),
      { maxLength: 8 },
    ),
    pending: fc.array(
      fc.record({
        gpus: fc.constantFrom(1, 2, 4, 8, 16),
        min: fc.constantFrom(0, 600, HOUR),
        max: fc.constantFrom<number | null>(null, 900, 2 * HOUR),
        only: fc.array(fc.nat(5), { maxLength: 3 }),
        exclude: fc.array(fc.nat(5), { maxLength: 2 }),
        budget: fc.nat(1),
        debug: fc.boolean(),
      }),
      { maxLength: 14 },
    ),
    reserve: fc.constantFrom(0, 0.1),
  });

  type Scenario = typeof arb extends fc.Arbitrary<infer T> ? T : never;

  function build(s: Scenario): { snap: ClusterSnapshot; jobs: Map<string, PendingJob> } {
    const c = makeCluster()
      .nodes(s.nodes)
      .budget("a", 0.5)
      .budget("b", 0.5)
      .usage("b", 50 * HOUR);
    const name = (i: number) => `n${String((i % s.nodes) + 1).padStart(2, "0")}`;
    const free = Array.from({ length: s.nodes }, () => 8);
    s.running.forEach((r, k) => {
      const n = r.node % s.nodes;
      if (free[n]! < r.gpus) return;
      const idx = Array.from({ length: r.gpus }, (_, i) => 8 - free[n]! + i);
      free[n]! -= r.gpus;
      // Unallocated runs may be constrained too: R12 moves must keep them on their nodes.
      const j = makeJob(`r${k}`)
        .budget(k % 2 ? "a" : "b")
        .gpus(r.gpus)
        .minRuntime(r.min)
        .resumable()
        .on(name(n), idx);
      if (k % 3 === 0) j.excludeNodes(name(n + 1));
      c.job(j.startedAt(NOW - r.age - 4 * HOUR));
    });
    const jobs = new Map<string, PendingJob>();
    s.pending.forEach((p, k) => {
      const j = makeJob(`p${k}`)
        .budget(p.budget ? "a" : "b")
        .gpus(p.gpus)
        .minRuntime(p.min)
        .maxRuntime(p.max !== null && p.max < p.min ? p.min : p.max)
        .submittedAt(k);
      if (p.debug && p.gpus <= 2) j.debug();
      if (p.only.length > 0) j.onlyNodes(...p.only.map(name));
      if (p.exclude.length > 0) j.excludeNodes(...p.exclude.map(name).filter((x) => !p.only.map(name).includes(x)));
      const job = j.pending();
      jobs.set(job.id, job);
      c.job(job);
    });
    return { snap: c.snapshot(), jobs };
  }

  const allowed = (j: { nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null }, n: string) =>
    !(j.excludeNodes ?? []).includes(n) && (!j.nodes || j.nodes.length === 0 || j.nodes.includes(n));

  function check(snap: ClusterSnapshot, r: CycleResult): void {
    const byId = new Map<string, { nodes?: readonly string[] | null; excludeNodes?: readonly string[] | null }>([
      ...snap.pending.map((j) => [j.id, j] as const),
      ...snap.running.map((j) => [j.id, j] as const),
    ]);
    const nodeOf = new Map(snap.running.map((j) => [j.id, j.placement.map((p) => p.nodeId)]));
    for (const st of startsOf(r)) for (const p of st.placement) expect(allowed(byId.get(st.jobId)!, p.nodeId)).toBe(true);
    for (const op of reservesOf(r)) for (const n of op.nodeIds) expect(allowed(byId.get(op.jobId)!, n)).toBe(true);
    // Victims for a constrained job hold GPUs on a node it may use (a whole-node victim on it).
    for (const op of preemptionsOf(r)) {
      const by = op.byJobId === null ? undefined : byId.get(op.byJobId);
      if (!by || op.reasonCode === "CONSOLIDATION" || op.reasonCode === "DRAIN") continue;
      expect(nodeOf.get(op.jobId)!.some((n) => allowed(by, n))).toBe(true);
    }
  }

  it("fair-share, stateless and kept, and both baselines", () => {
    fc.assert(
      fc.property(arb, (s) => {
        const { snap } = build(s);
        const policy = resolvePolicy({ debugReserve: s.reserve });
        check(snap, runCycle(snap, policy, NOW));
        const kept = createScheduler(policy);
        check(snap, kept.runCycle(snap, NOW));
        check(snap, kept.runCycle(snap, NOW + 30));
        check(snap, runPriorityCycle(snap, policy, NOW));
        check(snap, runFifoCycle(snap, policy, NOW));
      }),
      { numRuns: 300 },
    );
  });
});
