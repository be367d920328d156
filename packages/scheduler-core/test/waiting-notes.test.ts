import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy } from "../src/index";
import { FIFO, PRIORITY, type RuleSet } from "../src/baselines/index";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult, PendingJob } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { replayOverloaded, steadyOverload } from "./support/overloaded-replay";

/** Three priorities (so the priority baseline preempts by priority as well as for protected runs). */
function withPriorities(pending: readonly PendingJob[]): void {
  for (const p of pending) if (!Object.isFrozen(p)) (p as { priority: number }).priority = Number(p.id.slice(1)) % 3;
}

function cycle(snap: ClusterSnapshot, now: number, rules: RuleSet, defer: boolean): { result: CycleResult; deferred: number } {
  const memory = new WorkingMemory();
  memory.deferReasons = defer;
  const result = runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now, rules);
  return { result, deferred: memory.deferredJobs };
}

/** The reasons of a result, in its order, as the caller reads them (sentences included). */
const reasonsOf = (r: CycleResult): string => JSON.stringify([...r.pending.entries()]);

describe("a baseline's waiting jobs, noted and explained when first read (baselines/waiting-notes.ts)", () => {
  for (const rules of [PRIORITY, FIFO]) {
    it(`${rules.name}: gives exactly the result of pushing each reason at once, every reason code included`, () => {
      let deferred = 0;
      const codes = new Set<string>();
      replayOverloaded(
        rules === PRIORITY ? 41 : 42,
        30,
        // A job of all 48 GPUs fits only while no node drains (CLUSTER_DRAINING).
        steadyOverload({ gpus: [1, 2, 4, 8, 16, 48], unallocated: 0.4 }),
        (snap, now, c) => {
          withPriorities(snap.pending);
          const eager = cycle(snap, now, rules, false);
          const lazy = cycle(snap, now, rules, true);
          expect(eager.deferred).toBe(0);
          // Whole results: plan, order, stats (blocked allocated jobs counted as noted), reasons.
          expect(JSON.stringify(lazy.result), `cycle ${c} at t=${now}`).toBe(JSON.stringify(eager.result));
          for (const [, r] of lazy.result.pending.entries()) codes.add(r.code);
          deferred += lazy.deferred;
          return lazy.result;
        },
        { at: 600, nodeId: "n01", until: 3000 },
      );
      expect(deferred).toBeGreaterThan(300);
      expect([...codes].sort()).toEqual(expect.arrayContaining(["CAPACITY", "CLUSTER_DRAINING", "ORDER", "RESERVED_FOR"]));
    }, 60_000);
  }

  it("a kept scheduler's noted reasons, read after its next cycle, are the ones its cycle decided", () => {
    const scheduler = createScheduler(defaultPolicy, PRIORITY);
    let previous: { kept: CycleResult; eager: CycleResult } | null = null;
    let compared = 0;
    replayOverloaded(43, 25, steadyOverload({ gpus: [1, 2, 4, 8, 16], unallocated: 0.4 }), (snap, now) => {
      withPriorities(snap.pending);
      const eager = cycle(snap, now, PRIORITY, false).result;
      const kept = scheduler.runCycle(snap, now);
      // Last cycle's result, read only now that this cycle changed the kept board and admission.
      if (previous !== null) {
        expect(previous.kept.order).toEqual(previous.eager.order);
        expect(reasonsOf(previous.kept)).toBe(reasonsOf(previous.eager));
        if (previous.kept.pending.size > 20) compared++;
      }
      previous = { kept, eager };
      return kept;
    });
    expect(compared).toBeGreaterThan(10);
  });
});
