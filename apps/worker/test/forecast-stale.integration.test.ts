import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { getJob } from "@tranche/domain";
import { loadCycleInput, writeStartForecasts } from "@tranche/domain/runtime";
import type { StartForecast } from "@tranche/scheduler-core";
import { runClusterCycle } from "../src/cycle";
import { StartForecaster } from "../src/forecast";
import { Worker } from "../src/worker";
import { startHeartbeatScene, submit, waitFor, type HeartbeatScene, type World } from "./harness";

/**
 * The stored start forecast on the real worker's cycles (all five phases, the forecast on its own
 * thread) over Postgres, with the cycle's clock in the test's hands. Two nodes of 8 GPUs, 16-GPU jobs.
 */
describe("the worker's stored start forecast stays current", () => {
  let db: TestDatabase;
  let world: World;
  let beat: HeartbeatScene["beat"];
  let worker: Worker;

  beforeAll(async () => {
    ({ db, world, beat } = await startHeartbeatScene("forecast_stale"));
    // The lease is "test"'s (startHeartbeatScene); refreshed once an hour, so only the first cycle forecasts.
    worker = new Worker(db.prisma, {
      databaseUrl: db.url,
      workerId: "test",
      intervalMs: 1000,
      leaseTtlSec: 3600,
      policy: {},
      log: () => {},
      forecast: { everyMs: 3_600_000, maxJobs: 500, maxSteps: 40 },
    });
  });
  afterAll(async () => {
    await worker?.stop();
    await db?.drop();
  });

  const cycle = (now: number) => runClusterCycle({ ...worker.ports(), clock: () => now }, world.clusterId);
  const both = (t: number) => Promise.all(["c1-0", "c1-1"].map((n) => beat(n, t)));
  const view = (id: number) => getJob(db.prisma, world.actor, id);
  /** The stored forecast (the view may show the cycle's reservation instead, see forecast-facts.ts). */
  const stored = (id: number) =>
    db.prisma.job.findUniqueOrThrow({
      where: { id },
      select: { estimatedStartAt: true, estimatedStartWhy: true, estimatedStartAfter: true, estimatedAt: true },
    });

  it("a requeued job does not show the forecast it had before it started (made while a job now ended still ran)", async () => {
    const t0 = Math.floor(Date.now() / 1000) - 600;
    await both(t0);
    const x = await submit(db.prisma, world, { gpus: 16, maxRuntime: 3600, command: "sleep 3600", name: "x" });
    const y = await submit(db.prisma, world, { gpus: 16, resumable: true, command: "sleep 3600", name: "y" });
    // The first cycle starts x and the forecast; a later one stores it: y starts after x.
    await cycle(t0);
    await waitFor("y's forecast", async () => {
      await cycle(t0);
      return (await stored(y)).estimatedAt !== null;
    });
    expect((await stored(y)).estimatedStartAfter).toEqual([x]);

    // x ends early; y starts on its GPUs.
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: x, endedAt: null } });
    const exit = { jobId: x, segmentId: String(seg.id), status: "EXITED", pid: 1, launchedAt: null, exitCode: 0, signal: null };
    await beat("c1-0", t0 + 60, [{ ...exit, endedAt: new Date((t0 + 60) * 1000).toISOString() }]);
    await beat("c1-1", t0 + 60);
    await cycle(t0 + 61);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: y } })).state).toBe("RUNNING");

    // Both nodes fall silent: y is lost and, being resumable, requeued.
    await cycle(t0 + 200);
    const requeued = await view(y);
    expect(requeued.state).toBe("PENDING");
    // No forecast was made since: it has none, rather than the old one naming x, which ended.
    expect((await stored(y)).estimatedAt).toBeNull();
    expect(requeued).toMatchObject({
      estimatedStartAt: null,
      estimatedStartWhy: null,
      estimatedStartAfter: [],
      estimatedAt: null,
    });
  }, 60_000);

  it("a forecast never replaces a newer one, and one a refresh failed to renew is dropped, not left up as current", async () => {
    const y = (await db.prisma.job.findFirstOrThrow({ where: { name: "y" } })).id;
    const t = Math.floor(Date.now() / 1000);
    const estimate = (at: number): StartForecast => ({
      jobId: String(y),
      at,
      decidedAt: at,
      after: [],
      unknown: null,
      why: null,
    });
    await writeStartForecasts(db.prisma, [estimate(t + 3600)], t);
    // A result made earlier (another leader's, stored late) does not replace it.
    await writeStartForecasts(db.prisma, [estimate(t + 7200)], t - 30);
    expect((await stored(y)).estimatedStartAt).toEqual(new Date((t + 3600) * 1000));

    // The next refresh fails: at the cluster's next cycle the forecast it did not renew is gone.
    const f = new StartForecaster(
      db.prisma,
      { everyMs: 60_000, maxJobs: 500, maxSteps: 40 },
      {
        compute: () => Promise.reject(new Error("the forecast thread exited")),
      },
    );
    const input = await loadCycleInput(db.prisma, world.clusterId, t + 60);
    await f.afterCycle(input.snapshot, input.policy, t + 60, 0, () => {});
    await new Promise((r) => setImmediate(r));
    expect((await stored(y)).estimatedAt).not.toBeNull();
    await f.afterCycle(input.snapshot, input.policy, t + 63, 3000, () => {});
    expect(await stored(y)).toEqual({
      estimatedStartAt: null,
      estimatedStartWhy: null,
      estimatedStartAfter: [],
      estimatedAt: null,
    });
  });
});
