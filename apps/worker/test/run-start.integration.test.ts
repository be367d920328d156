import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { startHeartbeatScene, submit, type HeartbeatScene } from "./harness";

/**
 * A job retried in the second its failed run ended: the cycle's time is whole seconds, the agent's
 * exit report is to the millisecond. The retry's run starts when the failed one ended, not before it.
 */
describe("a run that starts in the second its job's previous run ended", () => {
  let scene: HeartbeatScene;
  // Whole seconds, well inside one hour, so the usage ledger holds one row per budget.
  const t0 = Math.floor(Date.now() / 3_600_000) * 3600 - 1800;

  beforeAll(async () => {
    scene = await startHeartbeatScene("run_start");
  });
  afterAll(async () => {
    await scene?.db.drop();
  });

  async function cycle(now: number) {
    const { db, world } = scene;
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, now), "test", { loadMs: 0, decideMs: 0 });
  }

  it("starts the retry when the failed run ended, its events in order, and charges no second twice", async () => {
    const { db, world, beat } = scene;
    const jobId = await submit(db.prisma, world, { command: "x", gpus: 8, minRuntime: 90, retries: 2 });
    await cycle(t0);
    const first = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId } });
    // The first run fails 10.689 s in; the next cycle, in that same second, retries it at once.
    const failedAt = new Date((t0 + 10) * 1000 + 689);
    const r = await beat("c1-0", t0 + 11, [
      {
        jobId,
        segmentId: String(first.id),
        status: "EXITED",
        pid: 1,
        launchedAt: null,
        exitCode: 1,
        signal: null,
        endedAt: failedAt.toISOString(),
      },
    ]);
    expect(r.status).toBe(200);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).state).toBe("PENDING");
    await cycle(t0 + 10);

    const runs = await db.prisma.runSegment.findMany({ where: { jobId }, orderBy: { id: "asc" } });
    expect(runs.map((s) => s.endedAt)).toEqual([failedAt, null]);
    expect(runs[1]!.startedAt).toEqual(failedAt);
    // Protected for its whole 90 s from the start it got.
    expect(runs[1]!.protectedUntil).toEqual(new Date(failedAt.getTime() + 90_000));
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.state, job.startedAt, job.protectedUntil]).toEqual(["RUNNING", failedAt, runs[1]!.protectedUntil]);

    // The timeline: started, back in the queue to try again, started again, each no earlier than the one before.
    const events = await db.prisma.jobEvent.findMany({
      where: { jobId, kind: { in: ["STARTED", "RETRIED"] } },
      orderBy: [{ at: "asc" }, { id: "asc" }],
    });
    expect(events.map((e) => e.kind)).toEqual(["STARTED", "RETRIED", "STARTED"]);
    expect(events[2]!.at.getTime()).toBeGreaterThanOrEqual(failedAt.getTime());

    // Charged: 8 GPUs for 10.689 s, then for 9.311 s up to t0 + 20; the two runs share no second.
    await cycle(t0 + 20);
    const ledger = await db.prisma.usageLedger.aggregate({
      where: { budgetId: world.budgets["lab/a"] },
      _sum: { gpuSeconds: true },
    });
    expect(Number(ledger._sum.gpuSeconds)).toBe(8 * 20);
  });
});

/**
 * A job that waited for its parent (`--after P:ok`), released in the second the parent ended: it starts
 * when the parent ended, not at the cycle's whole second before it.
 */
describe("a dependant that starts in the second its parent ended", () => {
  let scene: HeartbeatScene;
  const t0 = Math.floor(Date.now() / 3_600_000) * 3600 - 1800;

  beforeAll(async () => {
    scene = await startHeartbeatScene("run_start_after");
  });
  afterAll(async () => {
    await scene?.db.drop();
  });

  async function cycle(now: number) {
    const { db, world } = scene;
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, now), "test", { loadMs: 0, decideMs: 0 });
  }

  it("starts the dependant when its parent ended, its protection and STARTED event from then", async () => {
    const { db, world, beat } = scene;
    const parent = await submit(db.prisma, world, { command: "x", gpus: 8, minRuntime: 5 });
    const child = await submit(db.prisma, world, { command: "y", gpus: 8, minRuntime: 90, after: [`${parent}:ok`] });
    await cycle(t0);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: child } })).state).toBe("PENDING");
    const run = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: parent } });
    // The parent succeeds 10.689 s in; the next cycle, in that same second, starts its dependant.
    const endedAt = new Date((t0 + 10) * 1000 + 689);
    const r = await beat("c1-0", t0 + 11, [
      {
        jobId: parent,
        segmentId: String(run.id),
        status: "EXITED",
        pid: 1,
        launchedAt: null,
        exitCode: 0,
        signal: null,
        endedAt: endedAt.toISOString(),
      },
    ]);
    expect(r.status).toBe(200);
    const done = await db.prisma.job.findUniqueOrThrow({ where: { id: parent } });
    expect([done.state, done.finishedAt]).toEqual(["COMPLETED", endedAt]);
    await cycle(t0 + 10);

    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: child } });
    expect(seg.startedAt).toEqual(endedAt);
    expect(seg.protectedUntil).toEqual(new Date(endedAt.getTime() + 90_000));
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id: child } });
    expect([job.state, job.startedAt, job.protectedUntil]).toEqual(["RUNNING", endedAt, seg.protectedUntil]);
    const started = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: child, kind: "STARTED" } });
    expect(started.at.getTime()).toBeGreaterThanOrEqual(endedAt.getTime());
  });

  it("starts a dependant of an array when the array's last task ended", async () => {
    const { db, world, beat } = scene;
    // Beside the first test's dependant (8 GPUs, a whole node): two 4-GPU tasks, then a 4-GPU dependant.
    const array = await submit(db.prisma, world, { command: "x", gpus: 4, minRuntime: 5, array: "0-1" });
    const child = await submit(db.prisma, world, { command: "y", gpus: 4, minRuntime: 90, after: [`${array}:ok`] });
    await cycle(t0 + 100);
    const runs = await db.prisma.runSegment.findMany({
      where: { job: { arrayJobId: array } },
      include: { placements: { include: { node: true } } },
      orderBy: { jobId: "asc" },
    });
    expect(runs).toHaveLength(2);
    // The tasks succeed 10.300 s and 10.689 s in; the next cycle, in that same second, starts the dependant.
    const ends = [new Date((t0 + 110) * 1000 + 300), new Date((t0 + 110) * 1000 + 689)];
    for (const [i, run] of runs.entries()) {
      const exit = { jobId: run.jobId, segmentId: String(run.id), status: "EXITED", pid: 1, launchedAt: null, exitCode: 0 };
      const r = await beat(run.placements[0]!.node.name, t0 + 111, [{ ...exit, signal: null, endedAt: ends[i]!.toISOString() }]);
      expect(r.status).toBe(200);
    }
    await cycle(t0 + 110);
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id: child } });
    expect([job.state, job.startedAt]).toEqual(["RUNNING", ends[1]]);
  });
});
