// SPEC §4 squatting, live: the agent protocol's heartbeat handler on a real Postgres, fed reports on a
// virtual clock (30 real minutes would not fit a test): a job under 5% busy is flagged after 30 minutes
// of reports and not before, a busy job never is, and /metrics counts the flagged jobs per budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { handleHeartbeat, hashSecret, renderMetrics } from "@tranche/domain/runtime";
import { makeWorld, submit, type World } from "./harness";

const CREDENTIAL = "node-credential-for-the-squatting-test";
const T0 = Date.parse("2026-12-01T08:00:00Z");

describe("squatting over 30 minutes of reports", () => {
  let db: TestDatabase;
  let world: World;
  let idle: number;
  let busy: number;

  /** A RUNNING, charged job on c1-0's GPUs `gpus`, as a cycle would have started it. */
  async function running(gpus: number[], name: string): Promise<number> {
    const id = await submit(db.prisma, world, { gpus: gpus.length, minRuntime: 4 * 3600, command: "sleep 1", name });
    const start = new Date(T0 - 60_000);
    await db.prisma.job.update({ where: { id }, data: { state: "RUNNING", startedAt: start } });
    const seg = await db.prisma.runSegment.create({
      data: {
        jobId: id,
        clusterId: world.clusterId,
        budgetId: world.budgets["lab/a"]!,
        gpus: gpus.length,
        startedAt: start,
        charged: true,
      },
    });
    await db.prisma.segmentPlacement.create({ data: { segmentId: seg.id, nodeId: world.nodeIds["c1-0"]!, gpuIndexes: gpus } });
    return id;
  }

  /** One heartbeat of c1-0 at T0 + `sec`: GPUs 0-1 at `idleBusy` %, GPUs 2-3 at 60 %, the rest unknown. */
  async function beat(sec: number, idleBusy: number): Promise<void> {
    const util = [idleBusy, idleBusy / 2, 60, 60, null, null, null, null];
    const r = await handleHeartbeat(
      db.prisma,
      CREDENTIAL,
      {
        nodeName: "c1-0",
        agentVersion: "test",
        health: { healthy: true, errors: [] },
        gpus: util.map((u, index) => ({ index, uuid: `GPU-${index}`, name: "Fake", memoryMiB: 81920, utilizationPercent: u })),
        busyPercent: 30,
        jobs: [],
        logs: [],
      },
      new Date(T0 + sec * 1000),
    );
    expect(r.status).toBe(200);
  }

  const flags = async (id: number) =>
    db.prisma.job.findUniqueOrThrow({ where: { id }, select: { idleSince: true, squattingSince: true } });

  beforeAll(async () => {
    db = await createTestDatabase("squatting");
    world = await makeWorld(db.prisma, { nodes: 1 });
    await db.prisma.node.update({ where: { name: "c1-0" }, data: { agentCredentialHash: hashSecret(CREDENTIAL) } });
    idle = await running([0, 1], "parked");
    busy = await running([2, 3], "training");
  });

  afterAll(async () => {
    await db?.drop();
  });

  it("flags the idle job at 30 minutes of reports under 5% busy, not at 29 and not on its first idle report; the busy job never", async () => {
    await beat(0, 2);
    expect(await flags(idle)).toEqual({ idleSince: new Date(T0), squattingSince: null });
    // Reports every 30 s for 29 min 30 s: the streak is kept in the database, the flag is not raised.
    for (let s = 30; s < 1800; s += 30) await beat(s, s % 90 === 0 ? 4 : 1);
    expect((await flags(idle)).squattingSince).toBeNull();
    const metricsBefore = (await renderMetrics(db.prisma, new Date(T0 + 1799_000))).text;
    expect(metricsBefore).toContain('tranche_squatting_jobs{cluster="c1",budget="lab/a"} 0');

    await beat(1800, 3);
    expect(await flags(idle)).toEqual({ idleSince: new Date(T0), squattingSince: new Date(T0 + 1800_000) });
    expect(await flags(busy)).toEqual({ idleSince: null, squattingSince: null });
    // Still idle later: the flag keeps the moment it was raised.
    await beat(2400, 0);
    expect((await flags(idle)).squattingSince).toEqual(new Date(T0 + 1800_000));
    const metrics = (await renderMetrics(db.prisma, new Date(T0 + 2400_000))).text;
    expect(metrics).toContain('tranche_squatting_jobs{cluster="c1",budget="lab/a"} 1');
  });

  it("a report that finds the job busy again lowers the flag and restarts the window from zero", async () => {
    await beat(2430, 30);
    expect(await flags(idle)).toEqual({ idleSince: null, squattingSince: null });
    await beat(2460, 1);
    await beat(2460 + 1799, 1);
    expect(await flags(idle)).toEqual({ idleSince: new Date(T0 + 2460_000), squattingSince: null });
    await beat(2460 + 1800, 1);
    expect((await flags(idle)).squattingSince).toEqual(new Date(T0 + (2460 + 1800) * 1000));
  });
});
