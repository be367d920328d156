import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { makeWorld, submit, type World } from "./harness";

describe("stored pending reasons (R10)", () => {
  let db: TestDatabase;
  let world: World;

  beforeAll(async () => {
    db = await createTestDatabase("reasons");
    world = await makeWorld(db.prisma, { nodes: 1 });
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** One cycle as the worker runs it, with a small cap on first reasons so 130 jobs show the rule. */
  const cycle = async (now: number) => {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    const result = runCycle(input.snapshot, input.policy, input.now);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 }, { newReasonWriteCap: 10 });
    return result;
  };
  const unexplained = () => db.prisma.job.count({ where: { state: "PENDING", reasonCode: null } });

  it("the head of the queue is explained at once; jobs further back get their first reason within a few cycles, up to the cap per cycle", async () => {
    for (let i = 0; i < 130; i++) await submit(db.prisma, world, { gpus: 8, command: "sleep 100", name: `j${i}` });
    expect(await acquireOrRenewLease(db.prisma, "test", 60)).toBe(true);
    const t0 = Math.floor(Date.now() / 1000);

    const first = await cycle(t0);
    expect(first.plan.filter((op) => op.op === "START")).toHaveLength(1);
    // 129 pending at positions 2..130: positions <= 100 are written whatever the cap, the 30 behind wait.
    expect(await unexplained()).toBe(30);
    const head = await db.prisma.job.findMany({ where: { state: "PENDING", queuePosition: { lte: 100 } } });
    expect(head).toHaveLength(99);
    for (const j of head) {
      const r = first.pending.get(String(j.id))!;
      expect(j.reasonCode).toBe(r.code);
      expect(j.reasonSentence).toBe(r.sentence);
    }

    await cycle(t0 + 1);
    expect(await unexplained()).toBe(20);
    await cycle(t0 + 2);
    expect(await unexplained()).toBe(10);
    const last = await cycle(t0 + 3);
    expect(await unexplained()).toBe(0);
    const pending = await db.prisma.job.findMany({ where: { state: "PENDING" } });
    expect(pending).toHaveLength(129);
    for (const j of pending) expect(j.reasonCode).toBe(last.pending.get(String(j.id))!.code);
  });
});
