import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { computeEntitlements, computeUsage, runCycle } from "@tranche/scheduler-core";
import { simulate, type CycleFn } from "../src/engine.js";
import { createMemorySink, type SimEvent } from "../src/events-log.js";
import { policyConfig, runScenario } from "../src/run.js";
import { loadScenarioFile, validateScenario } from "../src/scenario.js";
import type { Scenario } from "../src/types.js";

const SMALL = join(import.meta.dirname, "../scenarios/small.yaml");

function scenario(raw: Record<string, unknown>): Scenario {
  return validateScenario(
    {
      clusters: [{ name: "c", nodes: 1, gpusPerNode: 8 }],
      budgets: {
        name: "lab",
        children: [
          { name: "a", allocation: { c: 0.5 } },
          { name: "b", allocation: { c: 0.5 } },
        ],
      },
      simulation: { restartOverhead: 300, checkpointInterval: 1800 },
      ...raw,
    },
    { file: "test.yaml", baseDir: "." },
  );
}

function events(
  s: Scenario,
  policy: "fairshare" | "priority" | "fifo" = "fairshare",
): { events: SimEvent[]; report: ReturnType<typeof runScenario> } {
  const sink = createMemorySink();
  const report = runScenario(s, { policy, sink });
  return { events: sink.events, report };
}

const pick = (evs: SimEvent[], job: string): string[] =>
  evs.filter((e) => e.job === job).map((e) => `${e.t} ${e.type}${e.cause ? ` ${e.cause}` : ""}`);

describe("replaying the small example scenario", { timeout: 120_000 }, () => {
  it("ends with every measure in its expected range", () => {
    const r = runScenario(loadScenarioFile(SMALL), { policy: "fairshare" });
    expect(Object.keys(r)).toEqual([
      "policy",
      "jobs",
      "availability",
      "occupancy",
      "delivery",
      "queueWait",
      "preemptions",
      "fragmentation",
      "sim",
    ]);
    expect(r.jobs.submitted).toBe(160);
    expect(r.jobs.completed).toBeGreaterThanOrEqual(150);
    expect(r.jobs.completed + r.jobs.unfinished).toBe(160);
    // Node h100-3 is out for 3 h and h100-1 for 1 h of a ~2-day run.
    expect(r.availability).toBeGreaterThan(0.95);
    expect(r.availability).toBeLessThan(1);
    expect(r.occupancy.total).toBeGreaterThan(0.8);
    expect(r.occupancy.total).toBeCloseTo(r.occupancy.allocated! + r.occupancy.unallocated!, 9);
    expect(r.delivery.budgets).toBe(3);
    expect(r.delivery.overall).toBeGreaterThan(0.6);
    expect(r.delivery.overall).toBeLessThanOrEqual(1);
    expect(Object.keys(r.delivery.perBudget).sort()).toEqual(["nlp/eval", "nlp/pretrain", "robotics"]);
    expect(r.queueWait.all.p50).not.toBeNull();
    expect(r.queueWait.debug.p50!).toBeLessThanOrEqual(r.queueWait.all.p90!);
    expect(r.queueWait.large.p50).toBeNull(); // no job of >= 64 GPUs
    expect(r.preemptions.count).toBeGreaterThan(0);
    expect(r.sim.events).toBeGreaterThan(160 * 3);
  });

  it("gives the same report and events twice, except the wall time", () => {
    const s = loadScenarioFile(SMALL);
    for (const policy of ["fairshare", "priority", "fifo"] as const) {
      const a = events(s, policy);
      const b = events(s, policy);
      expect({ ...a.report, sim: { ...a.report.sim, wallMs: 0 } }).toEqual({ ...b.report, sim: { ...b.report.sim, wallMs: 0 } });
      expect(a.events).toEqual(b.events);
    }
  });

  it("writes events in time order with the documented fields", () => {
    const { events: evs, report } = events(loadScenarioFile(SMALL));
    expect(evs.length).toBe(report.sim.events);
    for (let i = 1; i < evs.length; i++) expect(evs[i]!.t).toBeGreaterThanOrEqual(evs[i - 1]!.t);
    const types = new Set(evs.map((e) => e.type));
    expect([...types].sort()).toEqual(["node", "preempt", "requeue", "start", "stop", "submit"]);
    for (const e of evs) {
      if (e.type === "start") expect(Object.keys(e)).toEqual(expect.arrayContaining(["nodes", "protectedUntil"]));
      if (e.type === "preempt") expect(Object.keys(e)).toEqual(expect.arrayContaining(["by", "reason", "graceUntil"]));
      if (e.type === "stop") expect(["finish", "preempt", "kill", "lost", "cancel"]).toContain(e.cause);
      if (e.type === "node") expect(Object.keys(e)).toEqual(expect.arrayContaining(["node", "state"]));
    }
  });

  it("runs the priority and fifo baselines on the same trace", () => {
    const s = loadScenarioFile(SMALL);
    const fifo = runScenario(s, { policy: "fifo" });
    const prio = runScenario(s, { policy: "priority" });
    expect(fifo.policy).toBe("fifo");
    expect(prio.policy).toBe("priority");
    expect(fifo.jobs.completed).toBeGreaterThan(140);
    expect(prio.jobs.completed).toBeGreaterThan(140);
    // FIFO never preempts for ordering; only the drain and the lost node stop its jobs early.
    expect(fifo.preemptions.count).toBeLessThan(5);
  });
});

describe("window aggregates", { timeout: 120_000 }, () => {
  it("are, in every snapshot, what the core's computeUsage and computeEntitlements give", () => {
    const s = loadScenarioFile(SMALL);
    const policy = policyConfig(s);
    const seen: { now: number; tree: { id: string; usage: number; entitlement: number }[] }[] = [];
    const spy: CycleFn = (snap, pol, now) => {
      seen.push({
        now,
        tree: snap.tree.map((n) => ({ id: n.id, usage: n.usageGpuSeconds, entitlement: n.entitlementGpuSeconds })),
      });
      return runCycle(snap, pol, now);
    };
    const out = simulate(s, { cycle: () => spy, policy, sink: createMemorySink() });
    const segments = out.recorder.segments
      .filter((g) => g.charged)
      .map((g) => ({ budgetId: g.budgetId, gpus: g.gpus, start: g.startedAt, end: g.endedAt }));
    // Healthy capacity: h100-3 reports unhealthy 6h-9h; h100-1 is silent from 14h and DOWN from
    // 14h + 31s until its healthy report at 15h.
    const capacity = [
      { at: 0, healthyGpus: 32 },
      { at: 6 * 3600, healthyGpus: 24 },
      { at: 9 * 3600, healthyGpus: 32 },
      { at: 14 * 3600 + 31, healthyGpus: 24 },
      { at: 15 * 3600, healthyGpus: 32 },
    ];
    expect(seen[0]!.tree.length).toBe(5);
    let checked = 0;
    for (const snap of seen.filter((_, i) => i % 7 === 0)) {
      const shape = snapTree(s);
      const usage = computeUsage(
        segments
          .filter((g) => g.start <= snap.now)
          .map((g) => ({ ...g, end: g.end !== null && g.end <= snap.now ? g.end : null })),
        shape,
        snap.now,
        policy,
      );
      const ent = computeEntitlements(shape, [], capacity, snap.now, policy);
      for (const n of snap.tree) {
        expect(n.usage, `usage of ${n.id} at ${snap.now}`).toBeCloseTo(usage[n.id]!, 6);
        expect(Math.abs(n.entitlement - ent[n.id]!), `entitlement of ${n.id} at ${snap.now}`).toBeLessThanOrEqual(1);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });
});

/** The scenario's tree as the engine builds it (ids: "/" root, paths below). */
function snapTree(s: Scenario): { id: string; name: string; parentId: string | null; allocationPpm: number }[] {
  const out: { id: string; name: string; parentId: string | null; allocationPpm: number }[] = [];
  const walk = (b: Scenario["budgets"], id: string, parentId: string | null): void => {
    out.push({
      id,
      name: b.name,
      parentId,
      allocationPpm: parentId === null ? 1_000_000 : Math.round((b.allocation.h100 ?? 0) * 1e6),
    });
    for (const c of b.children) walk(c, parentId === null ? c.name : `${id}/${c.name}`, id);
  };
  walk(s.budgets, "/", null);
  return out;
}

describe("work, checkpoints and contracts", () => {
  it("a preempted resumable job keeps the work up to its last checkpoint and pays the restart overhead", () => {
    const s = scenario({
      jobs: [
        // Unallocated work (minRuntime 0): free, preemptible at once (R3), grace 10 s.
        { id: "free", submit: 0, budget: "a", gpus: 8, duration: 10000, min_runtime: 0 },
        { id: "paid", submit: 4000, budget: "b", gpus: 8, duration: 1000 },
      ],
    });
    const { events: evs, report } = events(s);
    expect(pick(evs, "free")).toEqual([
      "0 submit",
      "0 start",
      "4000 preempt",
      "4010 stop preempt",
      "4010 requeue",
      // 4000 s worked -> 3600 kept (30-min checkpoints); 300 s overhead + 6400 s left.
      "5010 start",
      "11710 stop finish",
    ]);
    expect(evs.find((e) => e.type === "requeue")).toMatchObject({ saved: 3600 });
    expect(pick(evs, "paid")).toEqual(["4000 submit", "4010 start", "5010 stop finish"]);
    expect(evs.find((e) => e.type === "preempt")).toMatchObject({
      by: "paid",
      reason: "UNALLOCATED_FOR_ALLOCATED",
      graceUntil: 4010,
    });
    // Lost: 400 s of work since the 3600 s checkpoint + the 300 s restart overhead, on 8 GPUs.
    expect(report.preemptions).toEqual({
      count: 1,
      gpuHours: (8 * 4000) / 3600,
      moves: 0,
      lostGpuHours: (8 * (400 + 300)) / 3600,
      byReason: { UNALLOCATED_FOR_ALLOCATED: { count: 1, gpuHours: (8 * 4000) / 3600 } },
    });
    expect(report.jobs).toEqual({ submitted: 2, completed: 2, unfinished: 0 });
    // Waits: free 0 then 1000 (requeued at 4010, restarted at 5010); paid 10.
    expect(report.queueWait.all).toEqual({ p50: 10, p90: 1000, p99: 1000 });
  });

  it("R12: a moved job preempted while its old copy winds down is requeued, never launched beside its preemptor", () => {
    const s = scenario({
      clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
      jobs: [
        { id: "m1", submit: 0, budget: "a", gpus: 2, duration: 20000, min_runtime: 0 },
        { id: "fill0", submit: 1, budget: "b", gpus: 5, duration: 20000, min_runtime: 20000 },
        { id: "fill1", submit: 2, budget: "b", gpus: 6, duration: 20000, min_runtime: 20000 },
        // Fits nowhere: m1 moves to c-1's two free GPUs and x takes c-0.
        { id: "x", submit: 3600, budget: "a", gpus: 3, duration: 20000, min_runtime: 0 },
        // Inside m1's move grace: the only GPUs it can have are those m1's new run holds.
        { id: "y", submit: 3605, budget: "a", gpus: 2, duration: 1000, min_runtime: 1000 },
      ],
    });
    const { events: evs } = events(s);
    expect(pick(evs, "m1").filter((e) => Number(e.split(" ")[0]) < 4000)).toEqual([
      "0 submit",
      "0 start",
      "3600 preempt",
      "3605 preempt",
      "3610 stop preempt",
      "3610 requeue",
    ]);
    expect(pick(evs, "y")).toContain("3615 start");
    // No GPU ever runs two jobs at once.
    const holder = new Map<string, string>();
    for (const e of evs) {
      if (e.type === "start")
        for (const [node, gpus] of Object.entries(e.nodes as Record<string, number[]>))
          for (const g of gpus) {
            const k = `${node}:${g}`;
            expect(holder.get(k), `${k} at ${e.t}`).toBeUndefined();
            holder.set(k, String(e.job));
          }
      if (e.type === "stop") for (const [k, j] of holder) if (j === e.job) holder.delete(k);
    }
  });

  it("R12: unallocated work in an allocated job's way moves to free GPUs elsewhere, restarting when its old copy has stopped, and counts as a move", () => {
    const s = scenario({
      clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
      jobs: [
        { id: "filler", submit: 0, budget: "b", gpus: 4, duration: 600, min_runtime: 600 },
        { id: "free", submit: 0, budget: "a", gpus: 4, duration: 20000, min_runtime: 0 },
        { id: "kept", submit: 10, budget: "b", gpus: 4, duration: 20000, min_runtime: 20000 },
        { id: "big", submit: 3600, budget: "a", gpus: 8, duration: 1000 },
      ],
    });
    const { events: evs, report } = events(s);
    expect(pick(evs, "free")).toEqual([
      "0 submit",
      "0 start",
      "3600 preempt",
      "3610 stop preempt",
      // Never requeued: it launches on the GPUs it already holds as soon as the old copy is gone.
      "3610 start",
      // 3600 s worked and checkpointed; 300 s restart overhead + 16,400 s left.
      "20310 stop finish",
    ]);
    expect(evs.find((e) => e.type === "preempt")).toMatchObject({ by: "big", reason: "CONSOLIDATION", graceUntil: 3610 });
    expect(pick(evs, "big")).toEqual(["3600 submit", "3610 start", "4610 stop finish"]);
    const starts = evs.filter((e) => e.job === "free" && e.type === "start");
    expect(Object.keys(starts[0]!.nodes as object)).not.toEqual(Object.keys(starts[1]!.nodes as object));
    // A move is no preemption, but its restart overhead is lost work: 300 s on 4 GPUs (checkpointed at 3600 s).
    // A move is no preemption, by reason either.
    expect(report.preemptions).toEqual({ count: 0, gpuHours: 0, moves: 1, lostGpuHours: (4 * 300) / 3600, byReason: {} });
  });

  it("a preempted non-resumable job loses everything and is not requeued", () => {
    const s = scenario({
      jobs: [
        { id: "once", submit: 0, budget: "a", gpus: 8, duration: 10000, min_runtime: 0, resumable: false },
        { id: "paid", submit: 4000, budget: "b", gpus: 8, duration: 1000 },
      ],
    });
    const { events: evs, report } = events(s);
    expect(pick(evs, "once")).toEqual(["0 submit", "0 start", "4000 preempt", "4010 stop preempt"]);
    expect(report.jobs).toEqual({ submitted: 2, completed: 1, unfinished: 1 });
  });

  it("maxRuntime kills a job that runs past it: the core's KILL at the deadline, then its grace", () => {
    const s = scenario({ jobs: [{ id: "long", submit: 0, budget: "a", gpus: 1, duration: 2000, max_runtime: 900 }] });
    const { events: evs, report } = events(s);
    // A debug-lane job is charged: it gets the regular grace after SIGTERM at 900 s.
    expect(pick(evs, "long")).toEqual(["0 submit", "0 start", `${900 + policyConfig(s).gracePeriod} stop kill`]);
    expect(report.jobs.completed).toBe(0);
    expect(report.queueWait.debug.p50).toBe(0); // maxRuntime 15 min on <= 8 GPUs: debug lane
  });
});

describe("the measured window", () => {
  it("starts at simulation.measureFrom: what ran before is a warm-up", () => {
    const s = scenario({
      simulation: { restartOverhead: 300, checkpointInterval: 1800, until: "2h", measureFrom: "1h" },
      jobs: [
        { id: "warm-1", submit: 0, budget: "a", gpus: 8, duration: "30m" },
        { id: "warm-2", submit: 0, budget: "a", gpus: 8, duration: "30m" },
        { id: "m", submit: "1h", budget: "a", gpus: 4, duration: "30m" },
      ],
    });
    const { report } = events(s);
    // [1h, 2h): 4 GPUs x 30 min of 8 GPUs x 1 h (the whole run would be 0.625), and only m's run,
    // which waited 0 (warm-2 waited 30 min, in the warm-up).
    expect(report.occupancy.total).toBeCloseTo(0.25, 6);
    expect(report.queueWait.all.p99).toBe(0);
    expect(report.jobs).toEqual({ submitted: 3, completed: 3, unfinished: 0 });
  });

  it("reports the jobs still waiting at the end by their waits so far, which the queue waits leave out", () => {
    const s = scenario({
      simulation: { restartOverhead: 300, checkpointInterval: 1800, until: "110m" },
      jobs: [
        { id: "hold", submit: 0, budget: "a", gpus: 8, duration: "3h", min_runtime: "2h" },
        { id: "big", submit: "30m", budget: "b", gpus: 8, duration: "1h", min_runtime: "1h" },
        { id: "dbg", submit: "90m", budget: "b", gpus: 1, duration: "5m", max_runtime: "10m" },
        { id: "later", submit: "3h", budget: "b", gpus: 1, duration: "5m" },
      ],
    });
    const { report } = events(s);
    // Only hold started (waited 0); big (80 min) and dbg (20 min) wait behind its protection until the
    // end at 110 min, and later is not submitted yet.
    expect(report.queueWait.all).toEqual({ p50: 0, p90: 0, p99: 0 });
    expect(report.queueWait.stillWaiting).toEqual({
      all: { count: 2, p50: 1200, p90: 4800, p99: 4800 },
      debug: { count: 1, p50: 1200, p90: 1200, p99: 1200 },
      large: { count: 0, p50: null, p90: null, p99: null },
    });
  });
});

describe("node events", () => {
  it("an unhealthy node drains when its job's protection ends, goes to REPAIR, and a healthy report makes it READY", () => {
    const s = scenario({
      clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
      nodeEvents: [
        { t: 100, node: "c-0", health: "unhealthy" },
        { t: 5000, node: "c-0", health: "healthy" },
      ],
      jobs: [{ id: "j", submit: 0, budget: "a", gpus: 8, duration: 3000, min_runtime: 1000 }],
    });
    const { events: evs, report } = events(s);
    const nodeEvents = evs.filter((e) => e.type === "node").map((e) => `${e.t} ${e.node} ${e.state}`);
    expect(nodeEvents).toEqual(["100 c-0 DRAINING", "1120 c-0 REPAIR", "5000 c-0 READY"]);
    // Protected until 1000 (R4), then preempted by the drain (R8) with 120 s of grace, requeued,
    // restarted on the other node with 1 checkpoint-less restart (0 s kept, 300 s overhead).
    expect(pick(evs, "j")).toEqual([
      "0 submit",
      "0 start",
      "1000 preempt",
      "1120 stop preempt",
      "1120 requeue",
      "1120 start",
      "4420 stop finish",
    ]);
    expect(evs.find((e) => e.type === "preempt")).toMatchObject({ reason: "DRAIN", by: null });
    expect(report.availability).toBeLessThan(1);
  });

  it("a healthy report during a drain does not end it (the agent protocol's rule): the node drains, then leaves REPAIR at once; an operator's maintenance waits for its healthy event", () => {
    const s = scenario({
      clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
      nodeEvents: [
        { t: 100, node: "c-0", health: "unhealthy" },
        { t: 500, node: "c-0", health: "healthy" },
        { t: 2000, node: "c-1", health: "maintenance" },
        { t: 6000, node: "c-1", health: "healthy" },
      ],
      jobs: [{ id: "j", submit: 0, budget: "a", gpus: 8, duration: 3000, min_runtime: 1000 }],
    });
    const { events: evs } = events(s);
    expect(evs.filter((e) => e.type === "node").map((e) => `${e.t} ${e.node} ${e.state}`)).toEqual([
      "100 c-0 DRAINING",
      "1120 c-0 REPAIR",
      "1120 c-0 READY",
      "2000 c-1 DRAINING",
      "2240 c-1 REPAIR",
      "6000 c-1 READY",
    ]);
  });

  it("a silent node goes DOWN after the heartbeat timeout and its jobs are lost and requeued", () => {
    const s = scenario({
      clusters: [{ name: "c", nodes: 2, gpusPerNode: 8 }],
      nodeEvents: [{ t: 100, node: "c-0", health: "down" }],
      jobs: [{ id: "j", submit: 0, budget: "a", gpus: 8, duration: 3000 }],
    });
    const { events: evs } = events(s);
    expect(evs.filter((e) => e.type === "node").map((e) => `${e.t} ${e.node} ${e.state}`)).toEqual(["131 c-0 DOWN"]);
    expect(pick(evs, "j")).toEqual(["0 submit", "0 start", "131 stop lost", "131 requeue", "131 start", "3431 stop finish"]);
  });
});
