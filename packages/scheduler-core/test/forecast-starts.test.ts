import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  accrueWindow,
  applyPlan,
  createClusterModel,
  defaultPolicy,
  forecastStarts,
  graceEnded,
  runCycle,
  snapshotOf,
  submitJob,
  type ClusterModel,
  type ClusterSnapshot,
  type ModelJob,
} from "../src/index";
import { makeCluster, makeJob } from "@tranche/testkit";

const NOW = 100_000;
const HOUR = 3600;
const GRACE = defaultPolicy.gracePeriod;

/** The case: two nodes held by protected jobs ending at 1 h and 2 h, four 8-GPU jobs pending. */
function twoNodesFourJobs(): ClusterSnapshot {
  return makeCluster()
    .budget("a", 0.5)
    .budget("b", 0.5)
    .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
    .node("n02", { gpus: 8, lastHeartbeatAt: NOW })
    .job(
      makeJob("r1").budget("a").gpus(8).minRuntime(HOUR).maxRuntime(HOUR).startedAt(NOW).on("n01").running(),
      makeJob("r2")
        .budget("a")
        .gpus(8)
        .minRuntime(2 * HOUR)
        .maxRuntime(2 * HOUR)
        .startedAt(NOW)
        .on("n02")
        .running(),
      ...[1, 2, 3, 4].map((k) =>
        makeJob(`p${k}`)
          .budget("b")
          .gpus(8)
          .minRuntime(HOUR)
          .maxRuntime(3 * HOUR)
          .submittedAt(NOW - 100 + k)
          .pending(),
      ),
    )
    .snapshot();
}

describe("forecastStarts", () => {
  it("gives each of four queued jobs its own start, after the jobs whose GPUs it takes", () => {
    const snap = twoNodesFourJobs();
    const { starts } = forecastStarts(snap, defaultPolicy, NOW, { minStep: 0, stepFraction: 0 });
    const at = Object.fromEntries(starts.map((s) => [s.jobId, s]));
    expect(at.p1!.at).toBe(NOW + HOUR + GRACE);
    expect(at.p1!.after).toEqual(["r1"]);
    expect(at.p2!.at).toBe(NOW + 2 * HOUR + GRACE);
    expect(at.p2!.after).toEqual(["r2"]);
    expect(at.p3!.at).toBe(NOW + HOUR + GRACE + 3 * HOUR + GRACE);
    expect(at.p3!.after).toEqual(["p1"]);
    expect(at.p4!.at).toBe(NOW + 2 * HOUR + GRACE + 3 * HOUR + GRACE);
    expect(at.p4!.after).toEqual(["p2"]);
  });

  it("lists the jobs whose GPUs it takes by id as numbers: #99 before #121", () => {
    const snap = makeCluster()
      .budget("a", 1)
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .node("n02", { gpus: 8, lastHeartbeatAt: NOW })
      .job(
        makeJob("121").budget("a").gpus(8).minRuntime(HOUR).maxRuntime(HOUR).startedAt(NOW).on("n01").running(),
        makeJob("99").budget("a").gpus(8).minRuntime(HOUR).maxRuntime(HOUR).startedAt(NOW).on("n02").running(),
        makeJob("200")
          .budget("a")
          .gpus(16)
          .minRuntime(HOUR)
          .maxRuntime(HOUR)
          .submittedAt(NOW - 10)
          .pending(),
      )
      .snapshot();
    const { starts } = forecastStarts(snap, defaultPolicy, NOW, { minStep: 0, stepFraction: 0 });
    expect(starts.find((s) => s.jobId === "200")!.after).toEqual(["99", "121"]);
  });

  it("says a job waiting behind running jobs with no max runtime has no known start, and why", () => {
    const snap = makeCluster()
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .budget("a", 0.5)
      .budget("b", 0.5)
      .job(
        makeJob("r1").budget("a").gpus(8).minRuntime(HOUR).maxRuntime(null).startedAt(NOW).on("n01").running(),
        makeJob("p1")
          .budget("a")
          .gpus(8)
          .minRuntime(HOUR)
          .submittedAt(NOW - 10)
          .pending(),
        makeJob("h1")
          .budget("b")
          .gpus(1)
          .minRuntime(HOUR)
          .submittedAt(NOW - 10)
          .held()
          .pending(),
      )
      .snapshot();
    const { starts } = forecastStarts(snap, defaultPolicy, NOW);
    const p1 = starts.find((s) => s.jobId === "p1")!;
    expect(p1.at).toBeNull();
    expect(p1.unknown).toBe("NO_KNOWN_END");
    expect(p1.why).toMatch(/no known end/);
    expect(starts.find((s) => s.jobId === "h1")!.unknown).toBe("HELD");
  });

  it("says a job larger than its budget's per-user limit waits for that limit, not for running jobs", () => {
    // Seen live: a 4-GPU job under a 2-per-person limit read "the running jobs it waits for have no
    // known end", though no end of any job would let it start.
    const s = makeCluster()
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .budget("a", 1)
      .job(
        makeJob("r1").budget("a").user("ada").gpus(2).minRuntime(HOUR).maxRuntime(HOUR).startedAt(NOW).on("n01").running(),
        makeJob("fits")
          .budget("a")
          .user("ada")
          .gpus(2)
          .minRuntime(HOUR)
          .submittedAt(NOW - 20)
          .pending(),
        makeJob("big")
          .budget("a")
          .user("ada")
          .gpus(4)
          .minRuntime(HOUR)
          .submittedAt(NOW - 10)
          .pending(),
      )
      .snapshot();
    const snap = { ...s, tree: s.tree.map((n) => (n.id === "a" ? { ...n, maxGpusPerUser: 2 } : n)) };
    const { starts } = forecastStarts(snap, defaultPolicy, NOW, { minStep: 0, stepFraction: 0 });
    const big = starts.find((x) => x.jobId === "big")!;
    expect(big.at).toBeNull();
    expect(big.unknown).toBe("OVER_USER_LIMIT");
    expect(big.why).toMatch(/per-user limit/);
    // A job that fits the limit still waits for the user's running job, and gets its time.
    expect(starts.find((x) => x.jobId === "fits")!.at).toBe(NOW + HOUR + GRACE);
  });

  it("says a job the ready nodes cannot hold waits for the nodes that are out, not for running jobs", () => {
    // Seen live: a whole-cluster job with one node in repair read "the running jobs it waits for have
    // no known end", though it waits for that node to come back.
    const snap = makeCluster()
      .budget("a", 1)
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .node("n02", { gpus: 8, lastHeartbeatAt: NOW, state: "CORDONED" })
      .job(
        makeJob("whole")
          .budget("a")
          .gpus(16)
          .minRuntime(HOUR)
          .maxRuntime(HOUR)
          .submittedAt(NOW - 10)
          .pending(),
      )
      .snapshot();
    const whole = forecastStarts(snap, defaultPolicy, NOW).starts.find((x) => x.jobId === "whole")!;
    expect(whole.at).toBeNull();
    expect(whole.unknown).toBe("NODES_OUT");
    expect(whole.why).toMatch(/draining, cordoned, in repair or down/);
  });

  it("starts a job that waits for another once that one leaves the replay at its max runtime", () => {
    const parent = makeJob("r1").budget("a").gpus(8).minRuntime(HOUR).maxRuntime(HOUR).startedAt(NOW).on("n01").running();
    const child = {
      ...makeJob("p1")
        .budget("a")
        .gpus(8)
        .minRuntime(HOUR)
        .submittedAt(NOW - 10)
        .pending(),
      dependencies: [{ jobId: "r1", condition: "ok" as const, state: "WAITING" as const }],
    };
    const snap = makeCluster()
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .node("n02", { gpus: 8, lastHeartbeatAt: NOW })
      .budget("a", 1)
      .job(parent, child)
      .snapshot();
    const p1 = forecastStarts(snap, defaultPolicy, NOW, { minStep: 0, stepFraction: 0 }).starts[0]!;
    expect(p1.at).toBe(NOW + HOUR + GRACE);
    const never = { ...child, dependencies: [{ jobId: "r1", condition: "ok" as const, state: "FAILED" as const }] };
    const q = forecastStarts({ ...snap, pending: [never] }, defaultPolicy, NOW).starts[0]!;
    expect(q.unknown).toBe("DEPENDENCY");
  });

  it("stops at its step bound and says the horizon was reached", () => {
    const { starts, cycleTimes } = forecastStarts(twoNodesFourJobs(), defaultPolicy, NOW, { maxSteps: 2 });
    expect(cycleTimes).toHaveLength(2);
    expect(starts.find((s) => s.jobId === "p4")!.unknown).toBe("HORIZON");
    // It says how far it looked: "the forecast horizon" alone read as a week, where two cycles looked 1 h.
    expect(cycleTimes[1]).toBe(NOW + HOUR);
    expect(starts.find((s) => s.jobId === "p4")!.why).toBe("it does not start within the next 1 h that the forecast looks ahead");
  });

  it("steps at least a minute, and a tenth of the time since now, so its cycles grow with the log of the horizon", () => {
    const { starts, cycleTimes } = forecastStarts(twoNodesFourJobs(), defaultPolicy, NOW);
    for (let i = 1; i < cycleTimes.length; i++)
      expect(cycleTimes[i]! - cycleTimes[i - 1]!).toBeGreaterThanOrEqual(
        Math.max(60, Math.round(0.1 * (cycleTimes[i - 1]! - NOW))),
      );
    // A job is taken in the cycle that kills the job before it (it starts when that grace ends), so the stride costs nothing here.
    expect(starts.find((s) => s.jobId === "p1")!.at).toBe(NOW + HOUR + GRACE);
    expect(starts.find((s) => s.jobId === "p3")!.at).toBeGreaterThanOrEqual(NOW + HOUR + GRACE + 3 * HOUR + GRACE);
  });

  it("forecasts only the head of the queue when asked, and says so for the rest", () => {
    const { starts } = forecastStarts(twoNodesFourJobs(), defaultPolicy, NOW, { maxJobs: 2 });
    expect(starts.filter((s) => s.unknown === "BEYOND").map((s) => s.jobId)).toEqual(["p3", "p4"]);
    expect(starts.find((s) => s.jobId === "p2")!.at).not.toBeNull();
  });

  it("names an array task's own earlier tasks when its array's cap holds it, not a GPU's earlier holder", () => {
    // One node, mostly free. Tasks t1 and t2 of array t1 (%2) run; u, unrelated, leaves first, and its
    // GPU stays free until t1 ends and makes room under the cap for t3, which takes u's old GPU.
    const s = makeCluster()
      .budget("a", 1)
      .node("n01", { gpus: 8, lastHeartbeatAt: NOW })
      .job(
        makeJob("u")
          .budget("a")
          .gpus(1)
          .minRuntime(600)
          .maxRuntime(HOUR / 2)
          .startedAt(NOW)
          .on("n01", [0])
          .running(),
        makeJob("t1").budget("a").gpus(1).minRuntime(600).maxRuntime(HOUR).startedAt(NOW).on("n01", [1]).running(),
        makeJob("t2")
          .budget("a")
          .gpus(1)
          .minRuntime(600)
          .maxRuntime(2 * HOUR)
          .startedAt(NOW)
          .on("n01", [2])
          .running(),
        makeJob("t3")
          .budget("a")
          .gpus(1)
          .minRuntime(600)
          .maxRuntime(HOUR)
          .submittedAt(NOW - 10)
          .pending(),
      )
      .snapshot();
    const task = <J extends { id: string }>(j: J): J => (j.id === "u" ? j : { ...j, arrayId: "t1", arrayMaxRunning: 2 });
    const snap = { ...s, running: s.running.map(task), pending: s.pending.map(task) };
    const t3 = forecastStarts(snap, defaultPolicy, NOW, { minStep: 0, stepFraction: 0 }).starts[0]!;
    expect(t3.at).toBe(NOW + HOUR + GRACE);
    expect(t3.after).toEqual(["t1"]);
  });

  it("leaves the snapshot as it was", () => {
    const snap = twoNodesFourJobs();
    const before = JSON.stringify(snap);
    forecastStarts(snap, defaultPolicy, NOW);
    expect(JSON.stringify(snap)).toBe(before);
  });
});

// --- properties --------------------------------------------------------------------------------

const arbRunning = fc.record({
  budget: fc.nat({ max: 2 }),
  nodes: fc.constantFrom(1, 1, 1, 2),
  minRuntime: fc.constantFrom(0, 600, HOUR),
  maxRuntime: fc.constantFrom<number | null>(null, 900, 2 * HOUR, 5 * HOUR),
  age: fc.integer({ min: 0, max: 4 * HOUR }),
  resumable: fc.boolean(),
});
const arbPending = fc.record({
  budget: fc.nat({ max: 2 }),
  nodes: fc.constantFrom(1, 1, 2),
  minRuntime: fc.constantFrom(0, 600, HOUR),
  maxRuntime: fc.constantFrom<number | null>(null, 1800, 3 * HOUR),
  priority: fc.integer({ min: 0, max: 1 }),
  submittedAt: fc.integer({ min: 0, max: NOW }),
});
const arbScenario = fc.record({
  nodes: fc.integer({ min: 1, max: 5 }),
  usage: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 3, maxLength: 3 }),
  running: fc.array(arbRunning, { maxLength: 6 }),
  pending: fc.array(arbPending, { minLength: 1, maxLength: 10 }),
});
type Scenario = typeof arbScenario extends fc.Arbitrary<infer T> ? T : never;

/** Uniform 8-GPU nodes and whole-node jobs: every job of a size can use the same nodes as any other. */
function build(s: Scenario): ClusterSnapshot {
  const c = makeCluster();
  for (let i = 0; i < s.nodes; i++) c.node(`n${i}`, { gpus: 8, lastHeartbeatAt: NOW });
  s.usage.forEach((u, i) => c.budget(`b${i}`, { ppm: 333_333 }, { usage: u * HOUR, entitlement: 100 * HOUR }));
  let next = 0;
  s.running.forEach((r, k) => {
    if (next + r.nodes > s.nodes) return;
    const ids = Array.from({ length: r.nodes }, (_, j) => `n${next + j}`);
    next += r.nodes;
    c.job(
      makeJob(`r${k}`)
        .budget(`b${r.budget}`)
        .gpus(8 * r.nodes)
        .minRuntime(r.minRuntime)
        .maxRuntime(r.maxRuntime === null ? null : Math.max(r.maxRuntime, r.minRuntime))
        .resumable(r.resumable)
        .startedAt(NOW - r.age)
        .onNodes(ids),
    );
  });
  s.pending.forEach((p, k) =>
    c.job(
      makeJob(`p${k}`)
        .budget(`b${p.budget}`)
        .gpus(8 * p.nodes)
        .minRuntime(p.minRuntime)
        .maxRuntime(p.maxRuntime === null ? null : Math.max(p.maxRuntime, p.minRuntime))
        .priority(p.priority)
        .submittedAt(p.submittedAt),
    ),
  );
  return c.snapshot();
}

const later = (a: number | null, b: number | null): boolean => (a === null ? b === null : b === null || b >= a);

describe("forecastStarts properties", () => {
  // Within one cycle the core may give the job ahead GPUs whose victims exit a few seconds later
  // (their grace) and the next job GPUs free now: both are taken in the same cycle, and that cycle
  // is what the order decides. Across cycles the start times themselves keep the order.
  it("never forecasts a job to be taken before a job ahead of it in the same budget with the same contract on the same nodes", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const { starts, order } = forecastStarts(snap, defaultPolicy, NOW);
        const at = new Map(starts.map((f) => [f.jobId, f.decidedAt]));
        const job = new Map(snap.pending.map((p) => [p.id, p]));
        const shape = (id: string): string => {
          const p = job.get(id)!;
          return `${p.budgetId}/${p.gpus}/${p.minRuntime}/${p.maxRuntime}`;
        };
        for (let i = 0; i < order.length; i++)
          for (let j = i + 1; j < order.length; j++)
            if (shape(order[i]!) === shape(order[j]!))
              expect(later(at.get(order[i]!)!, at.get(order[j]!)!), `${order[i]} ahead of ${order[j]}`).toBe(true);
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it("is reproduced exactly by replaying those cycles with no arrivals", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const { starts, cycleTimes } = forecastStarts(snap, defaultPolicy, NOW);
        // The replay: a cluster model with the same jobs, the core's cycle at each of those times.
        let model: ClusterModel = createClusterModel(snap.cluster, snap.nodes, snap.tree);
        const running: ModelJob[] = snap.running.map((r) => ({
          job: r,
          state: "RUNNING",
          requeues: 0,
          run: {
            startedAt: r.startedAt,
            placement: r.placement,
            charged: r.minRuntime > 0,
            lane: "ALLOCATED",
            protectedUntil: r.minRuntime > 0 ? r.startedAt + r.minRuntime : null,
            intent: null,
            graceUntil: null,
            requeue: false,
            byJobId: null,
          },
        }));
        model = { ...model, jobs: running };
        for (const p of snap.pending) model = submitJob(model, p);
        const first = new Map<string, number>();
        cycleTimes.forEach((t, i) => {
          if (i > 0) model = accrueWindow(model, cycleTimes[i - 1]!, t);
          model = graceEnded(model, t);
          const snapAt = snapshotOf(model);
          for (const n of snapAt.nodes) n.lastHeartbeatAt = t;
          const result = runCycle(snapAt, defaultPolicy, t);
          model = applyPlan(model, result.plan, t, result.reservations);
          for (const op of result.plan) if (op.op === "START" && !first.has(op.jobId)) first.set(op.jobId, op.startBy);
        });
        for (const f of starts) expect(first.get(f.jobId) ?? null, f.jobId).toBe(f.at);
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
