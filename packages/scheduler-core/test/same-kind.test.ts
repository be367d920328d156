import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BlockedMemo } from "../src/cycle/blocked-memo";
import type { JobLimits } from "../src/cycle/job-rules";
import { Reservations, type ActiveReservation } from "../src/cycle/reservations";
import type { CycleSession } from "../src/cycle/session";
import { EntryColumns } from "../src/entry-columns";
import type { NodeBoard } from "../src/cluster-state";
import type { FairTree } from "../src/fair-tree";
import { defaultPolicy } from "../src/index";
import type { PendingEntry } from "../src/order-pending";
import type { JobLane, PendingJob } from "../src/types";

const NOW = 10_000;

function entry(
  id: string,
  budget: number,
  lane: JobLane,
  gpus: number,
  minRuntime: number,
  maxRuntime: number | null,
): PendingEntry {
  return {
    job: { id } as PendingJob,
    budget,
    lane,
    priority: 0,
    submittedAt: 0,
    id,
    gpus,
    minRuntime,
    maxRuntime,
    capped: false,
    constrained: false,
    admitted: null,
  };
}

const job = fc.record({
  budget: fc.integer({ min: 0, max: 1 }),
  lane: fc.constantFrom<JobLane>("ALLOCATED", "UNALLOCATED"),
  gpus: fc.constantFrom(1, 2, 8),
  minRuntime: fc.constantFrom(0, 600, 3600, 7200),
  maxRuntime: fc.constantFrom(null, 1800, 7200),
  // Names nodes it must run on or avoid (node-constraints.ts): a kind of its own, now and then.
  constrained: fc.constantFrom(false, false, false, true),
});

interface ReservationSpec {
  holderAt: number | null;
  holder: { budget: number; lane: JobLane; gpus: number; minRuntime: number; maxRuntime: number | null };
  holderLane: JobLane;
  gpus: number;
  from: number;
}

const reservation: fc.Arbitrary<ReservationSpec> = fc.record({
  // The holder: one of the queue's jobs (by its place), or a job of its own.
  holderAt: fc.option(fc.integer({ min: 0, max: 11 }), { nil: null }),
  holder: job,
  holderLane: fc.constantFrom<JobLane>("ALLOCATED", "DEBUG"),
  gpus: fc.constantFrom(1, 8, 16),
  from: fc.constantFrom(0, 900, 3600, 7200, 9000),
});

/** A BlockedMemo over a stand-in session: `made` reservations (of the entries' jobs or their own), and jobs over their debug cap. */
function memoOver(entries: PendingEntry[], made: readonly ReservationSpec[], overCap: readonly number[]): { memo: BlockedMemo } {
  const tree = {
    size: 2,
    mayTakeShare: (a: number, b: number, g: number) => (a + b + g) % 3 === 0,
    mayTakeSurplus: (a: number, b: number, g: number) => (a * 2 + b + g) % 4 === 1,
  } as unknown as FairTree;
  const board = { count: 4, size: 8 } as unknown as NodeBoard;
  const reservations = new Reservations(board, tree, defaultPolicy, NOW);
  for (const r of made) {
    const own = r.holderAt !== null && r.holderAt < entries.length ? entries[r.holderAt]! : null;
    const holder = own ?? entry("holder", r.holder.budget, r.holderLane, r.holder.gpus, r.holder.minRuntime, r.holder.maxRuntime);
    const active: ActiveReservation = { jobId: holder.id, nodeIds: [], from: NOW + r.from, gpus: r.gpus, holder };
    reservations.list.push(active);
  }
  const over = new Set(overCap.map((i) => `j${i}`));
  const s = {
    tree,
    reservations,
    overDebugCap: over,
    isOverDebugCap: (e: PendingEntry) => over.has(e.id),
    isOverDebugCapJob: (_g: number, _b: number, id: string) => over.has(id),
    mayBeOverDebugCap: () => over.size > 0,
  } as unknown as CycleSession;
  return { memo: new BlockedMemo(s) };
}

/**
 * BlockedMemo.sameKind stands in for kindOf in the lanes' shared-outcome loop: whenever it says two
 * jobs are of one kind, kindOf must give them one kind (else a job would be told another kind's
 * outcome), and jobs with the same columns must be found alike (else the loop would gain nothing).
 * A real Reservations judges backfill; the tree's share checks are stand-ins that differ by budget
 * and GPUs, which is all that backfillOk passes them.
 */
describe("BlockedMemo.sameKind (the shared-outcome loop's kind test)", () => {
  it("says two jobs are alike only when kindOf gives them one kind", () => {
    fc.assert(
      fc.property(
        fc.array(job, { minLength: 2, maxLength: 12 }),
        fc.array(reservation, { maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 2 }),
        (jobs, made, overCap) => {
          const entries = jobs.map((j, i) => ({
            ...entry(`j${i}`, j.budget, j.lane, j.gpus, j.minRuntime, j.maxRuntime),
            constrained: j.constrained,
          }));
          const cols = EntryColumns.of(entries);
          const { memo } = memoOver(entries, made, overCap);
          for (let k = 0; k < entries.length; k++) {
            const kind = memo.kindOf(entries[k]!);
            if (kind === null) continue;
            for (let j = 0; j < entries.length; j++) {
              if (memo.sameKind(cols, j, k)) expect(memo.kindOf(entries[j]!), `job ${j} against ${k}`).toBe(kind);
              const a = jobs[j]!;
              const b = jobs[k]!;
              const twin =
                a.budget === b.budget &&
                a.lane === b.lane &&
                a.gpus === b.gpus &&
                a.minRuntime === b.minRuntime &&
                a.maxRuntime === b.maxRuntime &&
                !a.constrained &&
                !b.constrained;
              if (twin && memo.kindOf(entries[j]!) !== null) expect(memo.sameKind(cols, j, k), `twins ${j} and ${k}`).toBe(true);
            }
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
  it("kindRunEnd ends a run where asking sameKind and the limits of each entry in turn would", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ job, capped: fc.boolean() }), { minLength: 2, maxLength: 12 }),
        fc.array(reservation, { maxLength: 3 }),
        fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 2 }),
        fc.array(fc.integer({ min: 0, max: 1 }), { maxLength: 1 }),
        (rows, made, overCap, limitedBudgets) => {
          const jobs = rows.map((r) => r.job);
          const entries = jobs.map((j, i) => ({
            ...entry(`j${i}`, j.budget, j.lane, j.gpus, j.minRuntime, j.maxRuntime),
            capped: rows[i]!.capped,
            constrained: j.constrained,
          }));
          const { memo } = memoOver(entries, made, overCap);
          const cols = EntryColumns.of(entries);
          const limited = new Set(limitedBudgets);
          const limits = {
            mayBlock: (capped: boolean, budget: number) => capped || limited.has(budget),
          } as unknown as JobLimits;
          for (let k = 0; k < entries.length; k++) {
            if (memo.kindOf(entries[k]!) === null) continue;
            let j = k + 1;
            while (j < entries.length && !limits.mayBlock(cols.capped[j]!, cols.budget[j]!) && memo.sameKind(cols, j, k)) j++;
            expect(memo.kindRunEnd(cols, k, entries.length, limits), `run from ${k}`).toBe(j);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
