import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultPolicy, drainSpan, runCycle } from "../src/index";
import { makeCluster, makeJob, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

const arbScenario = fc.record({
  // Each node: a plan in 0..6 h (or none), and how many of its 8 GPUs a protected job holds.
  nodes: fc.array(
    fc.record({ plan: fc.option(fc.integer({ min: 1, max: 6 * HOUR }), { nil: null }), busy: fc.constantFrom(0, 0, 2, 4, 8) }),
    { minLength: 1, maxLength: 5 },
  ),
  running: fc.array(fc.record({ node: fc.nat(), unallocated: fc.boolean(), age: fc.integer({ min: 0, max: 4 * HOUR }) }), {
    maxLength: 5,
  }),
  pending: fc.array(
    fc.record({
      gpus: fc.constantFrom(1, 2, 4, 8, 16),
      minRuntime: fc.constantFrom(0, 300, HOUR, 2 * HOUR, 4 * HOUR),
      maxRuntime: fc.constantFrom<number | null>(null, 900, 6 * HOUR),
      budget: fc.constantFrom("a", "b"),
    }),
    { maxLength: 14 },
  ),
});

describe("planned drains: property", () => {
  it("no job starts on a node with a plan its protection (from its latest start) would cross", () => {
    fc.assert(
      fc.property(arbScenario, (s) => {
        const c = makeCluster().budget("a", 0.5).budget("b", 0.5);
        s.nodes.forEach((n, i) => c.node(`n${i}`, { drainAt: n.plan === null ? null : NOW + n.plan, lastHeartbeatAt: NOW }));
        // The protected jobs take the top GPUs, the unallocated ones the bottom, so they never overlap.
        s.nodes.forEach((n, i) => {
          if (n.busy > 0)
            c.job(
              makeJob(`busy${i}`)
                .budget("a")
                .gpus(n.busy)
                .minRuntime("8h")
                .on(
                  `n${i}`,
                  Array.from({ length: n.busy }, (_, g) => 7 - g),
                )
                .startedAt(NOW - 60),
            );
        });
        const taken = new Set<number>();
        s.running.forEach((r, k) => {
          const node = r.node % s.nodes.length;
          if (taken.has(node) || s.nodes[node]!.busy === 8) return;
          taken.add(node);
          c.job(
            makeJob(`u${k}`)
              .budget("b")
              .gpus(1)
              .unallocated()
              .on(`n${node}`, [0])
              .startedAt(NOW - r.age),
          );
        });
        s.pending.forEach((p, k) => {
          const max = p.maxRuntime !== null && p.maxRuntime < p.minRuntime ? p.minRuntime : p.maxRuntime;
          c.job(makeJob(`p${k}`).budget(p.budget).gpus(p.gpus).minRuntime(p.minRuntime).maxRuntime(max).submittedAt(k));
        });
        const snap = c.snapshot();
        const plans = new Map(snap.nodes.map((n) => [n.id, n.drainAt ?? null]));
        const r = runCycle(snap, defaultPolicy, NOW);
        for (const st of startsOf(r)) {
          const job = snap.pending.find((j) => j.id === st.jobId);
          if (!job) continue; // a move (R12): unallocated work, never protected
          const span = drainSpan(st.lane, job);
          for (const p of st.placement) {
            const at = plans.get(p.nodeId);
            if (at != null && span > 0) expect(st.startBy + span).toBeLessThanOrEqual(at);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
