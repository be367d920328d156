import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { startHeartbeatScene, submit, type HeartbeatScene, type World } from "./harness";

const ROUNDS = 8;

/**
 * Two agents report exits at the same moment, each for runs of both budgets but in the opposite
 * order (c1-0: lab/a then lab/b; c1-1: lab/b then lab/a). Each exit charges its run to the usage
 * ledger's (budget, cluster, hour) row, and that row stays locked until the heartbeat commits: charged
 * one exit at a time in report order, the two heartbeats took the two budgets' rows in opposite orders
 * and Postgres ended one with `deadlock detected` (40P01), the agent's report lost. They must both land.
 */
describe("concurrent heartbeats", () => {
  let db: TestDatabase;
  let world: World;
  let beat: HeartbeatScene["beat"];

  beforeAll(async () => {
    ({ db, world, beat } = await startHeartbeatScene("concurrent_heartbeats"));
  });
  afterAll(async () => {
    await db?.drop();
  });

  const cycle = async (now: number) => {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    // The cycle's own charge is left out: only the two heartbeats write the ledger here.
    await applyCyclePlan(
      db.prisma,
      input,
      runCycle(input.snapshot, input.policy, now),
      "test",
      { loadMs: 0, decideMs: 0 },
      {
        charge: false,
      },
    );
  };

  it("two agents reporting exits of both budgets in opposite orders, at once, eight times over: both land, every run charged once", async () => {
    let t = Math.floor(Date.now() / 1000) - 4000;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ["c1-0", "c1-1"]) expect((await beat(name, t)).status).toBe(200);
      // Eight 2-GPU jobs, four of each budget: two of each on each node, all charged (protected).
      const ids: number[] = [];
      for (let i = 0; i < 8; i++)
        ids.push(await submit(db.prisma, world, { command: "sleep 600", gpus: 2, budget: i % 2 ? "lab/b" : "lab/a" }));
      await cycle(t + 1);
      const open = await db.prisma.runSegment.findMany({
        where: { jobId: { in: ids }, endedAt: null },
        include: { placements: true, budget: { select: { path: true } } },
      });
      expect(open).toHaveLength(8);
      expect(open.every((s) => s.charged)).toBe(true);

      t += 100;
      const exit = (s: (typeof open)[number]) => ({
        jobId: s.jobId,
        segmentId: String(s.id),
        status: "EXITED",
        pid: 1,
        launchedAt: null,
        exitCode: 0,
        signal: null,
        endedAt: new Date(t * 1000).toISOString(),
      });
      const on = (node: string, first: string) =>
        open
          .filter((s) => s.placements[0]!.nodeId === world.nodeIds[node])
          .sort((x, y) => Number(x.budget.path !== first) - Number(y.budget.path !== first))
          .map(exit);
      const reports = await Promise.allSettled([beat("c1-0", t, on("c1-0", "lab/a")), beat("c1-1", t, on("c1-1", "lab/b"))]);
      for (const r of reports) expect(r.status === "rejected" ? String(r.reason) : r.value.status).toBe(200);

      const states = await db.prisma.job.findMany({ where: { id: { in: ids } }, select: { state: true } });
      expect(states.map((s) => s.state)).toEqual(Array(8).fill("COMPLETED"));
      t += 10;
    }
    // Every run was charged once, from its start to its exit: 8 runs x 2 GPUs x ~99 s per round.
    const charged = await db.prisma.runSegment.findMany({ select: { startedAt: true, endedAt: true, gpus: true } });
    const owed = charged.reduce((sum, s) => sum + ((s.endedAt!.getTime() - s.startedAt.getTime()) / 1000) * s.gpus, 0);
    const ledger = await db.prisma.usageLedger.aggregate({ _sum: { gpuSeconds: true } });
    expect(Number(ledger._sum.gpuSeconds)).toBe(Math.round(owed));
  }, 180_000);
});
