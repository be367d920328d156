import { makeJob } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import { PRIORITY, type RuleSet } from "../src/baselines/index";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { EntryColumns } from "../src/entry-columns";
import { defaultPolicy } from "../src/index";
import { PendingBacklog } from "../src/pending-backlog";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, PendingJob } from "../src/types";
import { WorkingMemory } from "../src/working-memory";
import { prng, replayOverloaded, steadyOverload } from "./support/overloaded-replay";

const job = (id: string, priority: number, submittedAt: number): PendingJob =>
  makeJob(id).priority(priority).submittedAt(submittedAt).pending();

describe("PendingBacklog", () => {
  it("keeps its jobs in queue order (priority, submit time, id) and refuses a second job of an id or a job it lacks", () => {
    const b = new PendingBacklog();
    const jobs = [job("c", 0, 5), job("a", 1, 9), job("b", 0, 5), job("d", 0, 1), job("e", 2, 100)];
    for (const j of jobs) b.add(j);
    expect(b.items.map((j) => j.id)).toEqual(["e", "a", "d", "b", "c"]);
    expect(() => b.add(job("b", 0, 5))).toThrow(/already pending/);
    expect(() => b.remove(job("a", 1, 9))).toThrow(/not pending/); // an equal copy is not the job
    b.remove(jobs[1]!);
    expect(b.items.map((j) => j.id)).toEqual(["e", "d", "b", "c"]);
  });

  it("journals adds and removes in order, forgets what a reader has seen, and says when it cannot reach back", () => {
    const b = new PendingBacklog();
    const [x, y, z] = [job("x", 0, 1), job("y", 0, 2), job("z", 0, 3)];
    const v0 = b.version;
    b.add(x);
    b.add(y);
    const v2 = b.version;
    b.remove(x);
    b.add(z);
    expect(b.changesSince(v0)).toEqual({ jobs: [x, y, x, z], added: [true, true, false, true] });
    expect(b.changesSince(v2)).toEqual({ jobs: [x, z], added: [false, true] });
    // v0's changes were forgotten when v2 was read.
    expect(b.changesSince(v0)).toBeNull();
    expect(b.changesSince(b.version)).toEqual({ jobs: [], added: [] });
    expect(b.changesSince(b.version + 1)).toBeNull();
  });

  it("forgets a journal nobody reads once it outgrows the backlog", () => {
    const b = new PendingBacklog();
    const v0 = b.version;
    const j = job("j", 0, 0);
    for (let i = 0; i < 3000; i++) {
      b.add(j);
      b.remove(j);
    }
    expect(b.changesSince(v0)).toBeNull();
    expect(b.version).toBe(6000);
  });

  it("is not carried by a copy of a snapshot: the copy's pending array is compared as any other", () => {
    const b = new PendingBacklog();
    b.add(job("a", 0, 0));
    const copy = JSON.parse(JSON.stringify({ pending: b.items, backlog: b })) as { backlog: { items?: unknown } };
    expect(copy.backlog.items).toBeUndefined();
    // The core is typed without the platform's globals: structuredClone is the runtime's.
    const clone = (globalThis as unknown as { structuredClone: <T>(v: T) => T }).structuredClone;
    expect((clone({ backlog: b }).backlog as { items?: unknown }).items).toBeUndefined();
  });
});

/**
 * Jobs a kept admission cannot keep, churned in and out of the backlog: a held job, one whose budget
 * is unknown (INVALID_CONTRACT), one waiting on a dependency and one whose dependency is met (admitted
 * afresh every cycle); every tenth cycle budget c loses its entitlement for a cycle (its jobs change
 * lane: the arrays are compared that cycle and the next); every seventh, the job that holds last
 * cycle's first reservation is cancelled. Every fifth cycle the backlog is not passed.
 */
function churn(
  rnd: () => number,
  backlog: PendingBacklog,
  snap: ClusterSnapshot,
  c: number,
  extras: PendingJob[],
  cancelled: { n: number },
): void {
  for (let i = extras.length - 1; i >= 0; i--) {
    // The job whose dependency is met may have started (the replay took it out of the backlog).
    if (!backlog.items.includes(extras[i]!)) {
      extras.splice(i, 1);
      continue;
    }
    if (rnd() < 0.3) {
      backlog.remove(extras[i]!);
      extras.splice(i, 1);
    }
  }
  const base = makeJob(`x${c}`)
    .budget("a")
    .gpus(1)
    .minRuntime(600)
    .submittedAt(c * 120);
  const made = [
    makeJob(`x${c}h`)
      .budget("b")
      .gpus(2)
      .held()
      .submittedAt(c * 120)
      .pending(),
    makeJob(`x${c}i`)
      .budget("nowhere")
      .gpus(1)
      .submittedAt(c * 120)
      .pending(),
    { ...base.pending(), id: `x${c}d`, dependencies: [{ jobId: "j0000", condition: "ok" as const, state: "WAITING" as const }] },
    {
      ...base.pending(),
      id: `x${c}m`,
      dependencies: [{ jobId: "j0001", condition: "any" as const, state: "COMPLETED" as const }],
    },
  ];
  for (const p of made) {
    if (rnd() < 0.5) {
      backlog.add(p);
      extras.push(p);
    }
  }
  const cNode = snap.tree.find((n) => n.id === "c")!;
  cNode.entitlementGpuSeconds = c % 10 === 6 ? 0 : 2_400_000;
  const holder = c % 7 === 3 ? snap.reservations?.[0]?.jobId : undefined;
  const held = backlog.items.find((p) => p.id === holder);
  if (held !== undefined) {
    backlog.remove(held);
    const i = extras.indexOf(held);
    if (i >= 0) extras.splice(i, 1);
    cancelled.n++;
  }
}

describe("kept admission from a backlog's changes (kept-admission.ts)", () => {
  for (const rules of [FAIRSHARE, PRIORITY] as RuleSet[]) {
    it(`${rules.name}: every cycle equals a fresh scheduler's on a copy of the snapshot`, () => {
      let journaled = 0;
      const cancelled = { n: 0 };
      for (const seed of [51, 52]) {
        const rnd = prng(seed * 7);
        const backlog = new PendingBacklog();
        const memory = new WorkingMemory();
        const extras: PendingJob[] = [];
        replayOverloaded(
          seed,
          40,
          steadyOverload({ unallocated: 0.4 }),
          (snap, now, c) => {
            churn(rnd, backlog, snap, c, extras, cancelled);
            const given = c % 5 === 4 ? { ...snap, backlog: undefined } : snap;
            const fresh = runCycleWith(
              new WorkingMemory(),
              JSON.parse(JSON.stringify(snap)) as ClusterSnapshot,
              defaultPolicy,
              now,
              rules,
            );
            const kept = runCycleWith(memory, given, defaultPolicy, now, rules);
            expect(JSON.stringify(kept), `seed ${seed} cycle ${c}`).toBe(JSON.stringify(fresh));
            expect([...kept.pending.entries()].map(([id, r]) => [id, r.code])).toEqual(
              [...fresh.pending.entries()].map(([id, r]) => [id, r.code]),
            );
            // The kept entries' columns move with them (entry-columns.ts): the baselines' walk reads them.
            const admission = memory.admission!;
            expect(admission.columns()).toEqual(EntryColumns.of(admission.keptEntries()));
            return kept;
          },
          undefined,
          backlog,
        );
        journaled += memory.admission!.journaled;
      }
      // A third of the cycles took in only the changes (the rest compare the arrays on purpose): the journal path ran.
      expect(journaled).toBeGreaterThan(20);
      expect(cancelled.n).toBeGreaterThan(3);
    }, 60_000);
  }
});
