import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  defaultPolicy,
  effectiveAllocations,
  isMove,
  resolvePolicy,
  runCycle,
  type ClusterSnapshot,
  type CycleResult,
  type NodeHealth,
  type NodeState,
  type PendingJob,
  type RunningJob,
} from "../src/index";
import { makeCluster, makeJob, startsOf, preemptionsOf } from "@tranche/testkit";

const NOW = 50_000;
const HOUR = 3600;

const arbNode = fc.record({
  state: fc.constantFrom<NodeState>("READY", "READY", "READY", "READY", "CORDONED", "DRAINING", "DOWN"),
  health: fc.constantFrom<NodeHealth>("HEALTHY", "HEALTHY", "HEALTHY", "HEALTHY", "UNHEALTHY"),
});
const arbBudget = fc.record({ alloc: fc.integer({ min: 0, max: 100 }), usageHours: fc.integer({ min: 0, max: 300 }) });
const arbRunning = fc.record({
  budget: fc.nat(),
  gpus: fc.constantFrom(1, 2, 4, 8, 16),
  minRuntime: fc.constantFrom(0, 600, HOUR, 4 * HOUR),
  maxRuntime: fc.constantFrom<number | null>(null, null, 900, 6 * HOUR),
  age: fc.integer({ min: 0, max: 6 * HOUR }),
  resumable: fc.boolean(),
  offset: fc.nat(),
});
const arbPending = fc.record({
  budget: fc.nat(),
  gpus: fc.constantFrom(1, 2, 3, 4, 8, 16, 24),
  minRuntime: fc.constantFrom(0, 600, HOUR, 4 * HOUR),
  maxRuntime: fc.constantFrom<number | null>(null, null, 600, 900, 2 * HOUR),
  priority: fc.integer({ min: 0, max: 2 }),
  submittedAt: fc.integer({ min: 0, max: NOW }),
  user: fc.constantFrom("ann", "bob", "cy"),
});
const arbScenario = fc.record({
  nodes: fc.array(arbNode, { minLength: 1, maxLength: 6 }),
  budgets: fc.array(arbBudget, { minLength: 1, maxLength: 5 }),
  running: fc.array(arbRunning, { maxLength: 14 }),
  pending: fc.array(arbPending, { maxLength: 16 }),
  heldEvery: fc.integer({ min: 0, max: 7 }),
  stoppingEvery: fc.integer({ min: 0, max: 7 }),
});

type Scenario = typeof arbScenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: Scenario): ClusterSnapshot {
  const c = makeCluster();
  s.nodes.forEach((n, i) => c.node(`n${i}`, { state: n.state, health: n.health, lastHeartbeatAt: NOW }));
  const paths = s.budgets.map((_, i) => `d${i % 2}/b${i}`);
  c.budget("d0", 0.5).budget("d1", 0.5);
  for (let d = 0; d < 2; d++) {
    const mine = s.budgets.map((b, i) => ({ b, i })).filter((x) => x.i % 2 === d);
    const sum = Math.max(
      100,
      mine.reduce((a, x) => a + x.b.alloc, 0),
    );
    for (const { b, i } of mine)
      c.budget(paths[i]!, { ppm: Math.floor((b.alloc / sum) * 1_000_000) }).usage(paths[i]!, b.usageHours * HOUR);
  }
  const free = s.nodes.map(() => Array.from({ length: 8 }, () => true));
  s.running.forEach((r, k) => {
    const budget = paths[r.budget % paths.length]!;
    const job = makeJob(`r${k}`)
      .budget(budget)
      .gpus(r.gpus)
      .minRuntime(r.minRuntime)
      .maxRuntime(r.maxRuntime)
      .resumable(r.resumable)
      .startedAt(NOW - r.age)
      .user(["ann", "bob", "cy"][k % 3]!);
    if (s.stoppingEvery > 0 && k % s.stoppingEvery === 0) job.stopping(NOW + 30);
    const usable = s.nodes.map((n, i) => ({ n, i })).filter((x) => x.n.state !== "REPAIR");
    if (r.gpus > 8) {
      const whole = usable.filter((x) => free[x.i]!.every(Boolean)).slice(0, r.gpus / 8);
      if (whole.length < r.gpus / 8) return;
      for (const w of whole) free[w.i]!.fill(false);
      job.onNodes(whole.map((w) => `n${w.i}`));
    } else {
      const order = usable.map((_, j) => usable[(j + r.offset) % usable.length]!);
      const target = order.find((x) => free[x.i]!.filter(Boolean).length >= r.gpus);
      if (!target) return;
      const idx: number[] = [];
      free[target.i]!.forEach((f, g) => {
        if (f && idx.length < r.gpus) idx.push(g);
      });
      for (const g of idx) free[target.i]![g] = false;
      job.on(`n${target.i}`, idx);
    }
    c.job(job);
  });
  s.pending.forEach((p, k) => {
    const job = makeJob(`p${k}`)
      .budget(paths[p.budget % paths.length]!)
      .gpus(p.gpus)
      .minRuntime(p.minRuntime)
      .maxRuntime(p.maxRuntime && p.minRuntime > p.maxRuntime ? p.minRuntime : p.maxRuntime)
      .priority(p.priority)
      .submittedAt(p.submittedAt)
      .user(p.user);
    if (s.heldEvery > 0 && k % s.heldEvery === s.heldEvery - 1) job.held();
    c.job(job);
  });
  return c.snapshot();
}

/** Budgets with entitlement, as the core defines it (allocation and window entitlement > 0). */
function entitledBudgets(snap: ClusterSnapshot): Set<string> {
  const eff = effectiveAllocations(snap.tree);
  return new Set(snap.tree.filter((t) => (eff.get(t.id) ?? 0) > 0 && t.entitlementGpuSeconds > 0).map((t) => t.id));
}

const isCharged = (j: RunningJob, entitled: Set<string>): boolean => j.charged ?? (j.minRuntime > 0 && entitled.has(j.budgetId));

function finalNodeStates(snap: ClusterSnapshot, r: CycleResult): Map<string, string> {
  const m = new Map(snap.nodes.map((n) => [n.id, n.state as string]));
  for (const o of r.plan) if (o.op === "NODE_STATE") m.set(o.nodeId, o.to);
  return m;
}

function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let a = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    a = (a * 1103515245 + 12345) & 0x7fffffff;
    const j = a % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const runs = { numRuns: 300 };

describe("SPEC invariants hold for any cluster state (property tests)", () => {
  it("never over-commits a node: new starts use free GPUs or GPUs of jobs they wait for", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        const leaving = new Set(
          r.plan.flatMap((o) => (o.op === "PREEMPT" || o.op === "LOST" || o.op === "KILL" ? [o.jobId] : [])),
        );
        const owner = new Map<string, string>(); // "node/gpu" -> job id
        for (const j of snap.running)
          for (const p of j.placement) for (const g of p.gpuIndexes) owner.set(`${p.nodeId}/${g}`, j.id);
        const size = new Map(snap.nodes.map((n) => [n.id, n.gpuCount]));
        const taken = new Set<string>();
        for (const st of startsOf(r)) {
          for (const p of st.placement) {
            for (const g of p.gpuIndexes) {
              const key = `${p.nodeId}/${g}`;
              expect(g).toBeGreaterThanOrEqual(0);
              expect(g).toBeLessThan(size.get(p.nodeId)!);
              expect(taken.has(key)).toBe(false);
              taken.add(key);
              const prev = owner.get(key);
              if (prev !== undefined) {
                expect(leaving.has(prev)).toBe(true);
                expect(st.afterExitOf).toContain(prev);
              }
            }
          }
        }
      }),
      runs,
    );
  });

  it("starts gangs whole: all GPUs on one READY node, or whole READY nodes for multi-node jobs", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        const states = finalNodeStates(snap, r);
        const health = new Map(snap.nodes.map((n) => [n.id, n.health]));
        // Pending jobs start; a moved job (R12) starts again with its own size.
        const gpusOf = new Map([...snap.pending, ...snap.running].map((j) => [j.id, j.gpus]));
        for (const st of startsOf(r)) {
          const total = st.placement.reduce((a, p) => a + p.gpuIndexes.length, 0);
          expect(total).toBe(gpusOf.get(st.jobId));
          expect(st.gpus).toBe(total);
          if (total <= 8) expect(st.placement).toHaveLength(1);
          else for (const p of st.placement) expect(p.gpuIndexes).toHaveLength(8);
          expect(new Set(st.placement.map((p) => p.nodeId)).size).toBe(st.placement.length);
          for (const p of st.placement) {
            expect(states.get(p.nodeId)).toBe("READY");
            expect(health.get(p.nodeId)).toBe("HEALTHY");
          }
        }
      }),
      runs,
    );
  });

  it("never preempts a protected job or a job already leaving", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        const entitled = entitledBudgets(snap);
        const byId = new Map(snap.running.map((j) => [j.id, j]));
        for (const p of preemptionsOf(r)) {
          const v = byId.get(p.jobId)!;
          expect(v.stopping ?? null).toBe(null);
          if (isCharged(v, entitled)) expect(NOW).toBeGreaterThanOrEqual(v.startedAt + v.minRuntime);
        }
      }),
      runs,
    );
  });

  it("never lets a debug-lane job end a run that would lose more than debugVictimMaxCost (R5)", () => {
    // No checkpoints here: a run's R6 cost is its GPUs x its age x 1.25. The limit is drawn too (the
    // generator's runs are up to 6 h old on up to 16 GPUs, so 128 GPU-hours never binds). Counted apart
    // so the property cannot pass by never seeing a debug preemption: some happen within the limits,
    // and without a limit some victims cost more. A fixed seed keeps those counts from depending on the
    // draw (debug preemptions of cheap runs are rare in this generator).
    let debugVictims = 0;
    let costlyWithoutLimit = 0;
    const open = resolvePolicy({ debugVictimMaxCost: Infinity });
    fc.assert(
      fc.property(arbScenario, fc.constantFrom(4, 16, 48, 128), (s, limitHours) => {
        const limit = limitHours * HOUR;
        const snap = build(s);
        const byId = new Map(snap.running.map((j) => [j.id, j]));
        const cost = (id: string) => {
          const v = byId.get(id)!;
          return v.gpus * (NOW - v.startedAt) * 1.25;
        };
        for (const p of preemptionsOf(runCycle(snap, resolvePolicy({ debugVictimMaxCost: limit }), NOW))) {
          if (p.reasonCode !== "DEBUG_LANE") continue;
          debugVictims++;
          expect(cost(p.jobId)).toBeLessThanOrEqual(limit);
        }
        for (const p of preemptionsOf(runCycle(snap, open, NOW)))
          if (p.reasonCode === "DEBUG_LANE" && cost(p.jobId) > limit) costlyWithoutLimit++;
      }),
      { ...runs, seed: 23 },
    );
    expect(debugVictims).toBeGreaterThan(0);
    expect(costlyWithoutLimit).toBeGreaterThan(0);
  });

  it("never preempts for nothing: every victim's GPUs go to the job it was preempted for", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        const starts = new Map(startsOf(r).map((st) => [st.jobId, st]));
        const byId = new Map(snap.running.map((j) => [j.id, j]));
        for (const p of preemptionsOf(r)) {
          if (p.reasonCode === "DRAIN") {
            expect(p.byJobId).toBe(null);
            continue;
          }
          const st = starts.get(p.byJobId!);
          expect(st).toBeDefined();
          expect(st!.afterExitOf).toContain(p.jobId);
          const mine = new Set(byId.get(p.jobId)!.placement.flatMap((pl) => pl.gpuIndexes.map((g) => `${pl.nodeId}/${g}`)));
          expect(st!.placement.some((pl) => pl.gpuIndexes.some((g) => mine.has(`${pl.nodeId}/${g}`)))).toBe(true);
        }
      }),
      runs,
    );
  });

  it("leaves no allocated job waiting while unallocated GPUs would let it start", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        const entitled = entitledBudgets(snap);
        const states = finalNodeStates(snap, r);
        const leaving = new Set(
          r.plan.flatMap((o) => (o.op === "PREEMPT" || o.op === "LOST" || o.op === "KILL" ? [o.jobId] : [])),
        );
        const reserved = new Set(r.reservations.flatMap((x) => x.nodeIds));
        // Per schedulable, unreserved node: GPUs free after the plan, and GPUs of unallocated jobs that stay.
        const usable = snap.nodes.filter((n) => states.get(n.id) === "READY" && n.health === "HEALTHY" && !reserved.has(n.id));
        const used = new Map<string, Set<number>>();
        const unalloc = new Map<string, number>();
        const stuck = new Map<string, boolean>(); // holds something that is not unallocated-and-staying
        const mark = (node: string, g: number) => {
          if (!used.has(node)) used.set(node, new Set());
          used.get(node)!.add(g);
        };
        for (const j of snap.running) {
          for (const p of j.placement) {
            for (const g of p.gpuIndexes) mark(p.nodeId, g);
            if (!leaving.has(j.id) && !j.stopping && !isCharged(j, entitled))
              unalloc.set(p.nodeId, (unalloc.get(p.nodeId) ?? 0) + p.gpuIndexes.length);
            else stuck.set(p.nodeId, true);
          }
        }
        for (const st of startsOf(r))
          for (const p of st.placement) {
            for (const g of p.gpuIndexes) mark(p.nodeId, g);
            stuck.set(p.nodeId, true);
          }
        const room = (n: (typeof usable)[number]) => n.gpuCount - (used.get(n.id)?.size ?? 0) + (unalloc.get(n.id) ?? 0);
        for (const [id, reason] of [...r.pending]) {
          if (!["ORDER", "BUDGET_OVER_SHARE", "DEBUG_VICTIM_COST", "CONTRACTS", "CAPACITY"].includes(reason.code)) continue;
          const job = snap.pending.find((j) => j.id === id)!;
          if (!(job.minRuntime > 0 && entitled.has(job.budgetId))) continue;
          if (job.gpus <= 8) expect(usable.some((n) => room(n) >= job.gpus)).toBe(false);
          else expect(usable.filter((n) => room(n) === 8 && !stuck.get(n.id)).length).toBeLessThan(job.gpus / 8);
        }
      }),
      runs,
    );
  });

  it("lets only work that is done or interruptible by then start on reserved nodes (R7 backfill)", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        // Pending jobs, and running ones a move (R12) starts again as unallocated work.
        const byId = new Map([...snap.pending, ...snap.running].map((j) => [j.id, j]));
        for (const res of r.reservations) {
          expect(res.from).toBeGreaterThanOrEqual(NOW);
          // Starts decided after the reservation (jobs earlier in order took their GPUs before it).
          const at = r.plan.findIndex((o) => o.op === "RESERVE" && o.jobId === res.jobId);
          for (const st of r.plan.slice(at + 1).flatMap((o) => (o.op === "START" ? [o] : []))) {
            if (st.jobId === res.jobId || !st.placement.some((p) => res.nodeIds.includes(p.nodeId))) continue;
            const j = byId.get(st.jobId)!;
            const doneBy = j.maxRuntime !== null && NOW + j.maxRuntime <= res.from;
            const interruptibleBy = !st.charged || NOW + j.minRuntime <= res.from;
            // R5: a debug-lane job does not wait for a one-node reservation that is due (its holder did
            // not start; docs/scheduling-model.md R5, §7 session 24). Nodes here have 8 GPUs.
            const dueOneNode = st.lane === "DEBUG" && res.gpus <= 8 && res.from <= NOW;
            expect(doneBy || interruptibleBy || dueOneNode).toBe(true);
          }
        }
      }),
      runs,
    );
  });

  it("gives every pending job that does not start exactly one reason", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const snap = build(s);
        const r = runCycle(snap, defaultPolicy, NOW);
        // A moved job's START (R12) relaunches a running job: not one of the pending.
        const started = new Set(
          startsOf(r)
            .filter((x) => !isMove(x))
            .map((x) => x.jobId),
        );
        for (const j of snap.pending) {
          if (started.has(j.id)) expect(r.pending.get(j.id)).toBeUndefined();
          else {
            expect(r.pending.get(j.id)).toBeDefined();
            expect(r.pending.get(j.id)!.sentence.length).toBeGreaterThan(10);
          }
        }
        expect([...r.pending.keys()].length + started.size).toBe(snap.pending.length);
        expect(new Set(r.order).size).toBe(r.order.length);
      }),
      runs,
    );
  });

  it("decides the same whatever the order of the input arrays (R11)", () => {
    fc.assert(
      fc.property(arbScenario, fc.integer({ min: 1, max: 1_000_000 }), (s, seed) => {
        const snap = build(s);
        const shuffled: ClusterSnapshot = {
          ...snap,
          nodes: shuffle(snap.nodes, seed),
          tree: shuffle(snap.tree, seed + 1),
          running: shuffle(snap.running, seed + 2),
          pending: shuffle(snap.pending, seed + 3) as PendingJob[],
        };
        const a = runCycle(snap, defaultPolicy, NOW);
        const b = runCycle(shuffled, defaultPolicy, NOW);
        expect(b).toEqual(a);
        // Byte for byte, key order included: what the worker persists and the UI shows.
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      }),
      { numRuns: 200 },
    );
  });
});
