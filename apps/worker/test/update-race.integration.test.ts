import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainError, updateJob } from "@tranche/domain";
import { applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { startHeartbeatScene, submit, type HeartbeatScene } from "./harness";

/**
 * A waiting job changed (update-job.ts) while a cycle decides: the cycle read its snapshot with the old
 * values, and must not start the job with them (8 GPUs placed for a job that now asks 4, a run charged
 * to its old budget). The revision fence (apply-plan.ts) skips the start; the next cycle starts the job
 * as it now is.
 */
describe("a job changed between a cycle's snapshot and its commit", () => {
  let scene: HeartbeatScene;

  beforeAll(async () => {
    scene = await startHeartbeatScene("update_race");
  });
  afterAll(async () => {
    await scene?.db.drop();
  });

  const decide = async (now: number) => {
    const { db, world } = scene;
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    return { input, result: runCycle(input.snapshot, input.policy, now) };
  };

  it("snapshot -> update -> apply: the start made for the old values is skipped, and the next cycle starts the new job", async () => {
    const { db, world } = scene;
    const t = Math.floor(Date.now() / 1000);
    const id = await submit(db.prisma, world, { command: "sleep 600", gpus: 8 });
    const { input, result } = await decide(t);
    const start = result.plan.find((o) => o.op === "START" && o.jobId === String(id));
    expect(start).toMatchObject({ gpus: 8, budgetId: world.budgets["lab/a"] });

    await updateJob(db.prisma, world.actor, id, { gpus: 4, budget: "lab/b" });
    const applied = await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });

    expect(applied.started).toBe(0);
    expect(await db.prisma.runSegment.count({ where: { jobId: id } })).toBe(0);
    const waiting = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    // Still waiting, with the new values, and no reason decided for the old ones.
    expect([waiting.state, waiting.gpus, waiting.budgetId, waiting.reasonCode]).toEqual([
      "PENDING",
      4,
      world.budgets["lab/b"],
      null,
    ]);

    const next = await decide(t + 1);
    const again = await applyCyclePlan(db.prisma, next.input, next.result, "test", { loadMs: 0, decideMs: 0 });
    expect(again.started).toBe(1);
    const run = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id }, include: { placements: true } });
    expect([run.gpus, run.budgetId, run.placements.flatMap((p) => p.gpuIndexes).length]).toEqual([4, world.budgets["lab/b"], 4]);
    const started = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect([started.state, started.submittedAt]).toEqual(["RUNNING", waiting.submittedAt]);
  });

  it("an update that comes while the cycle commits waits for it, then finds the job running and changes nothing", async () => {
    const { db, world } = scene;
    await db.prisma.job.updateMany({ where: { state: "RUNNING" }, data: { state: "CANCELLED" } });
    await db.prisma.runSegment.updateMany({ where: { endedAt: null }, data: { endedAt: new Date() } });
    const t = Math.floor(Date.now() / 1000) + 10;
    const id = await submit(db.prisma, world, { command: "sleep 600", gpus: 8 });
    const { input, result } = await decide(t);
    let update!: Promise<unknown>;
    const applied = await applyCyclePlan(
      db.prisma,
      input,
      result,
      "test",
      { loadMs: 0, decideMs: 0 },
      {
        beforeCommit: async () => {
          update = updateJob(db.prisma, world.actor, id, { gpus: 4 }).catch((e: unknown) => e);
          // Until the update waits on the job's row, which this transaction holds.
          for (;;) {
            const [row] = await db.prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
            if (row!.n > 0) break;
            await new Promise((r) => setTimeout(r, 10));
          }
        },
      },
    );
    expect(applied.started).toBe(1);
    const refused = await update;
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).message).toMatch(new RegExp(`^Job ${id} is running: only a job that waits to start`));
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect([job.state, job.gpus, job.revision]).toEqual(["RUNNING", 8, 0]);
    expect(await db.prisma.jobEvent.count({ where: { jobId: id, kind: "UPDATED" } })).toBe(0);
  });
});
