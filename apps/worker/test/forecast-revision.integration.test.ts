import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { holdArray, setJobHeld, updateJob } from "@tranche/domain";
import { loadCycleInput, refreshStartForecasts } from "@tranche/domain/runtime";
import { forecastStarts } from "@tranche/scheduler-core";
import { StartForecaster } from "../src/forecast";
import { makeWorld, submit, type World } from "./harness";

/**
 * A start forecast is computed from a snapshot, off the cycle, and stored later: a job changed, held or
 * released in between must not get the forecast made for what it was ("starts in 2 h" on a job now
 * held, one made for 16 GPUs on a job that now asks 8). The fence is job.revision, as for reasons.
 */
describe("a start forecast made before a job's update, hold or release is not stored on it", () => {
  let db: TestDatabase;
  let world: World;

  beforeAll(async () => {
    db = await createTestDatabase("forecast_revision");
    world = await makeWorld(db.prisma, { nodes: 2 });
  });
  afterAll(async () => {
    await db?.drop();
  });

  const estimatedAt = async (id: number) =>
    (await db.prisma.job.findUniqueOrThrow({ where: { id }, select: { estimatedAt: true } })).estimatedAt;
  const job = (name: string) => submit(db.prisma, world, { command: "sleep 600", gpus: 16, name });

  it("snapshot, then update, hold, release and an array's hold, then the forecast's write: only the untouched job gets it", async () => {
    const kept = await job("kept");
    const updated = await job("updated");
    const held = await job("held");
    const released = await job("released");
    await setJobHeld(db.prisma, world.actor, released, true);
    const array = await submit(db.prisma, world, { command: "sleep 600", gpus: 16, name: "sweep", array: "0-1" });
    const tasks = (await db.prisma.job.findMany({ where: { arrayJobId: array }, orderBy: { id: "asc" } })).map((t) => t.id);

    const t = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(db.prisma, world.clusterId, t);
    await updateJob(db.prisma, world.actor, updated, { gpus: 8 });
    await setJobHeld(db.prisma, world.actor, held, true);
    await setJobHeld(db.prisma, world.actor, released, false);
    await holdArray(db.prisma, world.actor, array);

    const starts = await refreshStartForecasts(db.prisma, input.snapshot, input.policy, t, {}, input.revisions);
    const all = [kept, updated, held, released, ...tasks];
    // Not a vacuous pass: the forecast has an answer for every one of them.
    expect(all.filter((id) => !starts.some((s) => s.jobId === String(id)))).toEqual([]);
    const stored = await Promise.all(all.map(async (id) => (await estimatedAt(id)) !== null));
    expect(stored).toEqual([true, false, false, false, false, false]);
  });

  it("the worker's forecaster stores a result with the revisions of the snapshot it was computed from", async () => {
    const id = await job("changed-while-computing");
    const control = await job("untouched-while-computing");
    const f = new StartForecaster(
      db.prisma,
      { everyMs: 60_000, maxJobs: 500, maxSteps: 40 },
      { compute: async (r) => forecastStarts(r.snapshot, r.policy, r.now, r.options).starts },
    );
    const t = Math.floor(Date.now() / 1000);
    const first = await loadCycleInput(db.prisma, world.clusterId, t);
    await f.afterCycle(first.snapshot, first.policy, t, 0, () => {}, first.revisions);
    await new Promise((r) => setImmediate(r));
    await updateJob(db.prisma, world.actor, id, { priority: 7 });
    // The next cycle's snapshot has the new revision; the result stored now was made from the first.
    const next = await loadCycleInput(db.prisma, world.clusterId, t + 1);
    await f.afterCycle(next.snapshot, next.policy, t + 1, 1_000, () => {}, next.revisions);
    expect([await estimatedAt(id), (await estimatedAt(control)) !== null]).toEqual([null, true]);
  });
});
