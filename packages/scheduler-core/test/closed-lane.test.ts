import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy } from "../src/index";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { replayOverloaded, steadyOverload, withJobRules } from "./support/overloaded-replay";

function cycle(
  snap: ClusterSnapshot,
  policy: PolicyConfig,
  now: number,
  defer: boolean,
): { result: CycleResult; deferred: number } {
  const memory = new WorkingMemory();
  memory.deferReasons = defer;
  const result = runCycleWith(memory, snap, policy, now, FAIRSHARE);
  return { result, deferred: memory.deferredJobs };
}

/**
 * An overloaded cluster with much unallocated work: every cycle is run with the closed unallocated
 * lane's rest deferred and with every job of it taken in turn, and the results (plan, order, reasons,
 * sentences) must be identical. Returns how many jobs the deferring runs left to their reader.
 */
function replay(seed: number, policy: PolicyConfig, rules: boolean, drain: boolean): number {
  let deferred = 0;
  const workload = steadyOverload({
    // With a node draining, a job of all 48 GPUs fits only the cluster, not its READY nodes (CLUSTER_DRAINING).
    gpus: drain ? [1, 2, 4, 8, 16, 48] : [1, 2, 4, 8, 16],
    unallocated: 0.5,
  });
  const node = drain ? { at: 600, nodeId: "n01", until: 3000 } : undefined;
  replayOverloaded(
    seed,
    30,
    workload,
    (snap, now, c) => {
      const given = rules ? withJobRules(snap) : snap;
      const eager = cycle(given, policy, now, false);
      const lazy = cycle(given, policy, now, true);
      expect(eager.deferred).toBe(0);
      expect(JSON.stringify(lazy.result), `cycle ${c} at t=${now}`).toBe(JSON.stringify(eager.result));
      deferred += lazy.deferred;
      return lazy.result;
    },
    node,
  );
  return deferred;
}

describe("the closed unallocated lane, ordered and explained when first read", () => {
  it("gives exactly the result of taking each of its jobs in turn, with and without a debug reserve", () => {
    const reserve = { ...defaultPolicy, debugReserve: 0.1 }; // 4 of the 48 GPUs
    for (const [seed, policy, rules, drain] of [
      [21, defaultPolicy, false, false],
      [22, defaultPolicy, true, true],
      [23, reserve, false, true],
      [24, reserve, true, false],
    ] as const) {
      // Hundreds of jobs deferred over the cycles: the comparison is not vacuous.
      expect(replay(seed, policy, rules, drain), `seed ${seed}`).toBeGreaterThan(300);
    }
  }, 60_000);

  it("gives a kept scheduler's order and reasons, read after its next cycle, as its cycle decided them", () => {
    // The order and the reasons keep runs of the cycle's queues (order-list.ts, reason-drafts.ts),
    // which the next cycle's kept queues must leave as they were.
    const scheduler = createScheduler(defaultPolicy);
    let previous: { kept: CycleResult; eager: CycleResult } | null = null;
    let compared = 0;
    replayOverloaded(41, 25, steadyOverload({ gpus: [1, 2, 4, 8, 16], unallocated: 0.4 }), (snap, now) => {
      const eager = cycle(snap, defaultPolicy, now, false).result;
      const kept = scheduler.runCycle(snap, now);
      if (previous !== null) {
        expect(previous.kept.order).toEqual(previous.eager.order);
        expect(JSON.stringify([...previous.kept.pending.entries()])).toBe(JSON.stringify([...previous.eager.pending.entries()]));
        if (previous.kept.order.length > 20) compared++;
      }
      previous = { kept, eager };
      return kept;
    });
    expect(compared).toBeGreaterThan(10);
  });

  it("writes the deferred reasons whichever is read first, the order or the reasons", () => {
    let checked = 0;
    replayOverloaded(
      31,
      20,
      {
        gpus: [1, 2, 4, 8],
        unallocated: 0.5,
        minRuntimes: [3600],
        users: 2,
        runFor: { min: 3600, spread: 3600 },
        initial: 120,
        arrive: () => {},
      },
      (snap, now) => {
        const given = withJobRules(snap);
        const eager = cycle(given, defaultPolicy, now, false).result;
        const byReasons = cycle(given, defaultPolicy, now, true);
        const reasonsFirst = JSON.stringify([...byReasons.result.pending.entries()]);
        expect(reasonsFirst).toBe(JSON.stringify([...eager.pending.entries()]));
        expect(byReasons.result.order).toEqual(eager.order);
        const byOrder = cycle(given, defaultPolicy, now, true).result;
        expect(byOrder.order).toEqual(eager.order);
        expect(byOrder.pending.size).toBe(eager.pending.size);
        expect(JSON.stringify([...byOrder.pending.entries()])).toBe(reasonsFirst);
        if (byReasons.deferred > 0) checked++;
        return eager;
      },
    );
    expect(checked).toBeGreaterThan(5);
  });
});
