import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { acquireOrRenewLease, applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { makeWorld, submit, type World } from "./harness";

// `--nodelist` / `--exclude` through the worker's cycle: the lists stored at submit, loaded into the
// snapshot, and the plan applied to the database.
describe("node lists in the worker's cycle", () => {
  let db: TestDatabase;
  let world: World;

  beforeAll(async () => {
    db = await createTestDatabase("node_lists");
    world = await makeWorld(db.prisma, { nodes: 3 });
  });
  afterAll(async () => {
    await db?.drop();
  });

  const cycle = async (now: number) => {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    const result = runCycle(input.snapshot, input.policy, input.now);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });
    return result;
  };
  const nodesOf = async (jobId: number) => {
    const rows = await db.prisma.segmentPlacement.findMany({ where: { segment: { jobId } }, select: { nodeId: true } });
    return rows.map((r) => r.nodeId);
  };

  it("starts a job only on the node it names, and keeps one whose node is full waiting with its reason", async () => {
    expect(await acquireOrRenewLease(db.prisma, "test", 60)).toBe(true);
    const t0 = Math.floor(Date.now() / 1000);
    // Best fit alone would put both 2-GPU jobs on c1-0 (the first node).
    const named = await submit(db.prisma, world, { gpus: 2, command: "sleep 100", nodes: ["c1-2"] });
    const kept = await submit(db.prisma, world, { gpus: 2, command: "sleep 100", excludeNodes: ["c1-0", "c1-2"] });
    expect(
      await db.prisma.job.findUniqueOrThrow({ where: { id: named }, select: { nodeList: true, excludeNodes: true } }),
    ).toEqual({ nodeList: ["c1-2"], excludeNodes: [] });
    await cycle(t0);
    expect(await nodesOf(named)).toEqual([world.nodeIds["c1-2"]]);
    expect(await nodesOf(kept)).toEqual([world.nodeIds["c1-1"]]);

    // c1-2 now holds 2 GPUs; a job of 8 that names it waits, while c1-0 is empty.
    const waiting = await submit(db.prisma, world, { gpus: 8, command: "sleep 100", nodes: ["c1-2"] });
    await cycle(t0 + 1);
    const row = await db.prisma.job.findUniqueOrThrow({ where: { id: waiting } });
    expect(row.state).toBe("PENDING");
    expect(row.reasonCode).toBe("NODE_CONSTRAINT");
    expect(await nodesOf(waiting)).toEqual([]);
  });
});
