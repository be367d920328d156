import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createScheduler, FAIRSHARE, FIFO, PRIORITY, type ClusterSnapshot, type RuleSet } from "@tranche/scheduler-core";
import { simulate } from "../src/engine.js";
import { createMemorySink } from "../src/events-log.js";
import { policyConfig } from "../src/run.js";
import { validateScenario } from "../src/scenario.js";

/**
 * The simulator runs each cluster on one scheduler that keeps its working state between cycles (the
 * board, the job states, the tree shape and node order) and each cycle's speed bookkeeping (shared
 * outcomes of blocked jobs, failed searches and reservation searches). Whatever the workload, every
 * cycle it runs must give exactly the result a fresh scheduler gives on a copy of the same snapshot
 * (nothing kept, nothing shared with the caller's arrays): the kept state may only save work.
 */
const arbJob = fc.record({
  submit: fc.integer({ min: 0, max: 20_000 }),
  budget: fc.constantFrom("a", "b", "c/x", "c/y"),
  gpus: fc.constantFrom(1, 1, 2, 4, 8, 16),
  duration: fc.integer({ min: 60, max: 30_000 }),
  minRuntime: fc.constantFrom(0, 0, 600, 3600, 7200),
  maxRuntime: fc.constantFrom<number | null>(null, null, null, 600, 900, 20_000),
  priority: fc.integer({ min: 0, max: 2 }),
  resumable: fc.boolean(),
  user: fc.constantFrom("ann", "bob"),
});
const arbNodeEvent = fc.record({
  t: fc.integer({ min: 1, max: 20_000 }),
  node: fc.integer({ min: 0, max: 2 }),
  health: fc.constantFrom("unhealthy", "healthy", "maintenance", "down"),
});
const arbWorkload = fc.record({
  nodes: fc.integer({ min: 2, max: 3 }),
  jobs: fc.array(arbJob, { minLength: 1, maxLength: 40 }),
  nodeEvents: fc.array(arbNodeEvent, { maxLength: 3 }),
  allocations: fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 6 })),
});
type Workload = typeof arbWorkload extends fc.Arbitrary<infer T> ? T : never;

/** Every cycle of the replay: the kept scheduler's result against a fresh one's on a deep copy. */
function checkReplay(w: Workload, rules: RuleSet): void {
  const [a, b, c] = w.allocations;
  const sum = a + b + c;
  const scenario = validateScenario(
    {
      clusters: [{ name: "k", nodes: w.nodes, gpusPerNode: 8 }],
      budgets: {
        name: "lab",
        children: [
          { name: "a", allocation: { k: a / sum } },
          { name: "b", allocation: { k: b / sum } },
          {
            name: "c",
            allocation: { k: c / sum },
            children: [
              { name: "x", allocation: { k: 0.7 } },
              { name: "y", allocation: { k: 0.3 } },
            ],
          },
        ],
      },
      simulation: { restartOverhead: 60, checkpointInterval: 900, until: 40_000 },
      nodeEvents: w.nodeEvents.filter((e) => e.node < w.nodes).map((e) => ({ t: e.t, node: `k-${e.node}`, health: e.health })),
      jobs: w.jobs.map((j, i) => ({
        id: `j${String(i).padStart(2, "0")}`,
        submit: j.submit,
        budget: j.budget,
        user: j.user,
        gpus: j.gpus,
        duration: j.duration,
        min_runtime: j.minRuntime,
        max_runtime: j.maxRuntime === null ? undefined : Math.max(j.maxRuntime, j.minRuntime),
        priority: j.priority,
        resumable: j.resumable,
      })),
    },
    { file: "kept-state.yaml", baseDir: "." },
  );
  const policy = policyConfig(scenario);
  let cycles = 0;
  simulate(scenario, {
    policy,
    sink: createMemorySink(),
    cycle: () => {
      const kept = createScheduler(policy, rules);
      return (snapshot: ClusterSnapshot, p, now) => {
        // A plain deep copy: the simulator's running jobs read lastCheckpointAt through a getter.
        const copy = structuredClone({
          ...snapshot,
          running: snapshot.running.map((r) => ({ ...r, lastCheckpointAt: r.lastCheckpointAt })),
        });
        const expected = JSON.stringify(createScheduler(p, rules).runCycle(copy, now));
        const result = kept.runCycle(snapshot, now);
        expect(JSON.stringify(result), `cycle ${cycles} at ${now}`).toBe(expected);
        cycles++;
        return result;
      };
    },
  });
}

describe("a scheduler that keeps its state between cycles", { timeout: 120_000 }, () => {
  for (const rules of [FAIRSHARE, PRIORITY, FIFO]) {
    it(`gives, every cycle of a replay, what a fresh scheduler gives on a copy of the snapshot (${rules.name})`, () => {
      fc.assert(
        fc.property(arbWorkload, (w) => checkReplay(w, rules)),
        { numRuns: rules === FAIRSHARE ? 40 : 15 },
      );
    });
  }
});
