import { makeCluster, makeJob, preemptionsOf, reservesOf, startedIds, type JobBuilder } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import { createScheduler, defaultPolicy } from "../src/index";
import { FIFO, PRIORITY, type RuleSet } from "../src/baselines/index";
import { PendingBacklog } from "../src/pending-backlog";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult, PendingJob } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { replayOverloaded, steadyOverload } from "./support/overloaded-replay";

/** Three priorities (so the priority baseline preempts by priority as well as for protected runs). */
function withPriorities(pending: readonly PendingJob[]): void {
  for (const p of pending) if (!Object.isFrozen(p)) (p as { priority: number }).priority = Number(p.id.slice(1)) % 3;
}

function cycle(
  snap: ClusterSnapshot,
  now: number,
  rules: RuleSet,
  defer: boolean,
): { result: CycleResult; deferred: number; closed: number; quiet: number } {
  const memory = new WorkingMemory();
  memory.deferReasons = defer;
  const result = runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, now, rules);
  return { result, deferred: memory.deferredJobs, closed: memory.closedTailJobs, quiet: memory.quietRunJobs };
}

/** The reasons of a result, in its order, as the caller reads them (sentences included). */
const reasonsOf = (r: CycleResult): string => JSON.stringify([...r.pending.entries()]);

describe("a baseline's waiting jobs, noted and explained when first read (baselines/waiting-notes.ts)", () => {
  // Three priorities (the priority baseline preempts by priority as well as for protected runs), and
  // one (as in the traces: its walk's tail closes once both victim classes failed, closed-tail.ts).
  // FIFO never searches for victims, so its tail closes at the first job that waits once no free
  // placement is left for the smallest job after it: few jobs wait in runs before (quietBefore).
  const cases = [
    { rules: PRIORITY, seed: 41, priorities: true, quietBefore: 100 },
    { rules: PRIORITY, seed: 44, priorities: false, quietBefore: 100 },
    { rules: FIFO, seed: 42, priorities: true, quietBefore: 0 },
  ];
  for (const { rules, seed, priorities, quietBefore } of cases) {
    it(`${rules.name}${priorities ? "" : ", one priority"}: gives exactly the result of pushing each reason at once, every reason code included`, () => {
      let deferred = 0;
      let closed = 0;
      let quiet = 0;
      const codes = new Set<string>();
      replayOverloaded(
        seed,
        30,
        // A job of all 48 GPUs fits only while no node drains (CLUSTER_DRAINING).
        steadyOverload({ gpus: [1, 2, 4, 8, 16, 48], unallocated: 0.4 }),
        (snap, now, c) => {
          if (priorities) withPriorities(snap.pending);
          const eager = cycle(snap, now, rules, false);
          const lazy = cycle(snap, now, rules, true);
          expect(eager.deferred).toBe(0);
          expect(eager.quiet).toBe(0); // walked job by job
          // Whole results: plan, order, stats (blocked allocated jobs counted as noted), reasons.
          expect(JSON.stringify(lazy.result), `cycle ${c} at t=${now}`).toBe(JSON.stringify(eager.result));
          for (const [, r] of lazy.result.pending.entries()) codes.add(r.code);
          deferred += lazy.deferred;
          closed += lazy.closed;
          quiet += lazy.quiet - lazy.closed;
          return lazy.result;
        },
        { at: 600, nodeId: "n01", until: 3000 },
      );
      expect(deferred).toBeGreaterThan(300);
      // The walk's tail closed in some cycles, and those cycles are among the ones compared.
      expect(closed).toBeGreaterThan(100);
      // Jobs passed in runs that wait together before the tail (quiet-runs.ts), compared too.
      expect(quiet).toBeGreaterThan(quietBefore);
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

  it("with the caller's backlog, reads after its next cycle the entries its cycle walked", () => {
    // With a backlog, admission's kept entries are the cycle's own (CycleSession.entries), and the next
    // cycle's admission changes them in place: the walk's deferred reasons must read their own copy.
    for (const rules of [PRIORITY, FIFO]) {
      const scheduler = createScheduler(defaultPolicy, rules);
      const backlog = new PendingBacklog();
      let previous: { kept: CycleResult; eager: CycleResult } | null = null;
      let compared = 0;
      replayOverloaded(
        43,
        25,
        steadyOverload({ gpus: [1, 2, 4, 8, 16], unallocated: 0.4 }),
        (snap, now) => {
          const eager = cycle({ ...snap, backlog: undefined }, now, rules, false).result;
          const kept = scheduler.runCycle(snap, now);
          if (previous !== null) {
            expect(previous.kept.order, rules.name).toEqual(previous.eager.order);
            expect(reasonsOf(previous.kept), rules.name).toBe(reasonsOf(previous.eager));
            if (previous.kept.pending.size > 20) compared++;
          }
          previous = { kept, eager };
          return kept;
        },
        undefined,
        backlog,
      );
      expect(compared, rules.name).toBeGreaterThan(10);
    }
  });
});

describe("a baseline walk's closed tail (baselines/closed-tail.ts)", () => {
  for (const rules of [PRIORITY, FIFO]) {
    it(`${rules.name}: a later job that fits free GPUs outside the reserved node still starts`, () => {
      // n01 has 2 free GPUs, n02 6, n03 none. The first job (8 GPUs) fits nowhere and reserves n02; the
      // next (2 GPUs) fits n01: the tail must not close after the first job.
      const snap = makeCluster()
        .nodes(3)
        .budget("a", 1)
        .job(
          makeJob("r1").budget("a").gpus(6).minRuntime(3600).on("n01").startedAt(0),
          makeJob("r2").budget("a").gpus(2).minRuntime(3600).on("n02").startedAt(0),
          makeJob("r3").budget("a").gpus(8).minRuntime(3600).on("n03").startedAt(0),
          makeJob("big").budget("a").gpus(8).minRuntime(3600).submittedAt(10),
          makeJob("small").budget("a").gpus(2).minRuntime(3600).submittedAt(20),
        )
        .snapshot();
      const memory = new WorkingMemory();
      const result = runCycleWith(memory, snap, defaultPolicy, 100, rules);
      expect(reservesOf(result).map((op) => op.jobId)).toEqual(["big"]);
      expect(startedIds(result)).toEqual(["small"]);
      expect(memory.closedTailJobs).toBe(0);
    });
  }

  it("priority: a small job that runs charged still searches once larger charged jobs failed to", () => {
    // "u" (1 GPU, unallocated work) may preempt no run of its own priority and reserves n01; "big" (8
    // GPUs, charged) may take no reserved node and finds none; "small" (1 GPU, charged) outranks the
    // preemptible run on n02 and takes its GPU. The tail must not close before "small": both victim
    // classes failed by then, but the charged one only at 8 GPUs.
    const memory = new WorkingMemory();
    const result = runCycleWith(memory, fullCluster(1), defaultPolicy, 100, PRIORITY);
    expect(reservesOf(result).map((op) => op.jobId)).toEqual(["u"]);
    expect(preemptionsOf(result).map((op) => [op.jobId, op.byJobId])).toEqual([["free", "small"]]);
    expect(startedIds(result)).toEqual(["small"]);
  });
});

describe("what a baseline's waiting job records of the free GPUs (baselines/quiet-runs.ts)", () => {
  it("priority: a job that waits after a start by preemption records the GPUs free then, not those when the first job waited", () => {
    // As in the test above, but "free" holds 3 GPUs of n02 for the 1 "small" takes: 2 GPUs of n02 are
    // free after that start. "later" (4 GPUs) then waits, and its reason says so (the first waits saw
    // none free).
    const snap = fullCluster(3, makeJob("later").budget("a").gpus(4).unallocated().submittedAt(40));
    for (const defer of [true, false]) {
      const { result } = cycle(snap, 100, PRIORITY, defer);
      expect(startedIds(result)).toEqual(["small"]);
      expect(result.pending.get("u")!.sentence).toContain("no GPU is free");
      expect(result.pending.get("later")!.sentence).toContain("the largest free block is 2 GPUs on one node");
    }
  });
});

/**
 * Every GPU held: by preemptible runs on all of n01 and on the last `k` GPUs of n02 ("free"), and by a
 * protected run on the rest of n02. Budget "a" waits with "u" (1 GPU, unallocated work), "big" (8 GPUs)
 * and "small" (1 GPU), then `more`.
 */
function fullCluster(k: number, ...more: JobBuilder[]): ClusterSnapshot {
  const lastK = Array.from({ length: k }, (_, i) => 8 - k + i);
  return makeCluster()
    .nodes(2)
    .budget("a", 0.5)
    .budget("c", 0.5)
    .job(
      makeJob("free8").budget("c").gpus(8).unallocated().charged(false).on("n01").startedAt(0),
      makeJob("r2")
        .budget("c")
        .gpus(8 - k)
        .minRuntime(3600)
        .on("n02")
        .startedAt(0),
      makeJob("free").budget("c").gpus(k).unallocated().charged(false).on("n02", lastK).startedAt(0),
      makeJob("u").budget("a").gpus(1).unallocated().submittedAt(10),
      makeJob("big").budget("a").gpus(8).minRuntime(3600).submittedAt(20),
      makeJob("small").budget("a").gpus(1).minRuntime(3600).submittedAt(30),
      ...more,
    )
    .snapshot();
}
