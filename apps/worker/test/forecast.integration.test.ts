import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { StartForecaster } from "../src/forecast";
import { makeWorld, submit, type World } from "./harness";

describe("the worker's start forecast (phase 5)", () => {
  let db: TestDatabase;
  let world: World;
  // Every forecaster made here is closed after the tests: none leaves its thread running.
  const made: StartForecaster[] = [];
  const forecaster = () => {
    const f = new StartForecaster(db.prisma, { everyMs: 60_000, maxJobs: 500, maxSteps: 40 });
    made.push(f);
    return f;
  };

  beforeAll(async () => {
    db = await createTestDatabase("forecast");
    world = await makeWorld(db.prisma, { nodes: 1 });
  });
  afterAll(async () => {
    await Promise.all(made.map((f) => f.close()));
    await db?.drop();
  });

  it("stores each waiting job's forecast after the cycle, the jobs ahead first, and refreshes it only when due", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(await submit(db.prisma, world, { gpus: 8, maxRuntime: 3600, command: "sleep 100", name: `j${i}` }));
    expect(await acquireOrRenewLease(db.prisma, "test", 60)).toBe(true);
    const now = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    const result = runCycle(input.snapshot, input.policy, input.now);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 }, {});

    const f = forecaster();
    expect(f.due(world.clusterId, 1_000_000)).toBe(true);
    await f.refresh(input.snapshot, input.policy, now, 1_000_000);
    expect(f.due(world.clusterId, 1_030_000)).toBe(false);
    expect(f.due(world.clusterId, 1_060_000)).toBe(true);

    const rows = await db.prisma.job.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
    // The first started in the cycle: its row keeps no forecast of its own (only waiting rows are written).
    expect(rows[0]!.state).toBe("RUNNING");
    expect(rows[0]!.estimatedAt).toBeNull();
    const [, second, third] = rows;
    expect(second!.estimatedStartAt!.getTime() / 1000).toBeGreaterThanOrEqual(now + 3600);
    expect(second!.estimatedStartAfter).toEqual([ids[0]]);
    expect(third!.estimatedStartAt!.getTime()).toBeGreaterThan(second!.estimatedStartAt!.getTime());
    expect(third!.estimatedStartAfter).toEqual([ids[1]]);
    expect(third!.estimatedAt!.getTime()).toBe(now * 1000);
  });

  it("closing the forecaster ends its thread, and a closed one starts no new thread", async () => {
    const input = await loadCycleInput(db.prisma, world.clusterId, Math.floor(Date.now() / 1000));
    const f = forecaster();
    expect(f.threadRunning).toBe(false); // started at the first forecast, not before
    await f.refresh(input.snapshot, input.policy, input.now, 0);
    expect(f.threadRunning).toBe(true);
    await f.close();
    expect(f.threadRunning).toBe(false);
    await expect(f.refresh(input.snapshot, input.policy, input.now, 60_000)).rejects.toThrow("the forecast thread is closed");
    expect(f.threadRunning).toBe(false);
  });
});
