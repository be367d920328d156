import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JobState } from "../src/job-state";
import { RunningTotals } from "../src/running-totals";
import type { RunningJob } from "../src/types";

/**
 * A kept state (kept-working-state.ts) keeps its totals by removing the jobs that left (counted as they
 * were at the earlier time), moving the GPUs of jobs whose protection ended since to interruptible, and
 * adding the jobs that arrived. Whatever the jobs, that must give what summing the running jobs afresh
 * at the later time gives.
 */
const BUDGETS = 4;

const jobArb = fc.record({
  budget: fc.integer({ min: -1, max: BUDGETS - 1 }),
  gpus: fc.integer({ min: 1, max: 16 }),
  user: fc.constantFrom("ann", "bo", "cy"),
  array: fc.option(fc.constantFrom("a1", "a2"), { nil: null }),
  charged: fc.boolean(),
  debug: fc.boolean(),
  stopping: fc.boolean(),
  protectedUntil: fc.integer({ min: 0, max: 200 }),
  maxEnd: fc.oneof(fc.constant(Infinity), fc.integer({ min: 0, max: 400 })),
  schedulableGpus: fc.integer({ min: 0, max: 16 }),
});

type Spec = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function jobStateOf(s: Spec, k: number): JobState {
  const job = { id: `j${k}`, gpus: s.gpus, userId: s.user, arrayId: s.array } as unknown as RunningJob;
  return {
    job,
    budget: s.budget,
    charged: s.charged,
    debug: s.charged && s.debug,
    protectedUntil: s.protectedUntil,
    maxEnd: s.maxEnd,
    stopping: s.stopping,
    exitBy: 0,
    isNew: false,
    gone: false,
    slots: [],
    schedulableGpus: Math.min(s.schedulableGpus, s.gpus),
  };
}

function same(a: RunningTotals, b: RunningTotals): void {
  expect(a.held).toEqual(b.held);
  expect(a.interruptible).toEqual(b.interruptible);
  expect(new Map([...a.debugByUser].sort())).toEqual(new Map([...b.debugByUser].sort()));
  expect(new Map([...a.arrayRunning].sort())).toEqual(new Map([...b.arrayRunning].sort()));
  expect(a.earliestMaxEnd).toBe(b.earliestMaxEnd);
}

describe("RunningTotals", () => {
  it("kept by removes, ended protections and adds equals a fresh sum at the later time", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(jobArb, fc.boolean()), { maxLength: 30 }),
        fc.array(jobArb, { maxLength: 10 }),
        fc.integer({ min: 0, max: 100 }),
        fc.integer({ min: 0, max: 150 }),
        (kept, arriving, t0, dt) => {
          const t1 = t0 + dt;
          const before = kept.map(([s], k) => jobStateOf(s, k));
          const totals = RunningTotals.of(before, BUDGETS, t0);
          const stay = before.filter((_, k) => kept[k]![1]);
          for (const js of before) if (!stay.includes(js)) totals.remove(js, t0);
          for (const js of stay)
            if (js.charged && !js.stopping && t0 < js.protectedUntil && js.protectedUntil <= t1) totals.protectionEnded(js);
          const arrived = arriving.map((s, k) => jobStateOf(s, 100 + k));
          for (const js of arrived) totals.add(js, t1);
          const after = [...stay, ...arrived];
          totals.settle(after);
          same(totals, RunningTotals.of(after, BUDGETS, t1));
        },
      ),
      { numRuns: 300 },
    );
  });
});
