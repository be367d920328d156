import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { planNodeDrain } from "@tranche/domain";
import { startStack, submit, waitFor, type Stack, type World } from "./harness";

// R8's planned drain end to end: the worker's cycles (the core's planNodeStates) keep a job whose
// minimum would cross the plan off the node, let a short one start, and drain the node at its time.
describe("a planned drain", () => {
  let stack: Stack;
  let db: TestDatabase;
  let world: World;

  beforeAll(async () => {
    stack = await startStack("planned_drain", {
      nodes: 2,
      waitForAgents: true,
      // Only c1-0 takes work: the plan is what keeps the long job off it.
      beforeProcesses: async (d) => {
        await d.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
      },
    });
    ({ db, world } = stack);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("keeps a long minimum off the node, starts a short one there, and drains the node at its time", async () => {
    // Time enough for a few cycles on a busy machine before the plan is due; brought forward below once
    // both jobs have been decided, so the test does not sit out the rest of it.
    const planned = new Date(Date.now() + 30_000);
    await planNodeDrain(db.prisma, world.actor, { name: "c1-0" }, planned.toISOString(), "driver 560");
    const long = await submit(db.prisma, world, { gpus: 4, minRuntime: 3600, command: "sleep 120" });
    const short = await submit(db.prisma, world, { gpus: 4, minRuntime: 5, gracePeriod: 2, command: "sleep 120" });

    await waitFor("the short job to start", async () =>
      db.prisma.jobEvent.findFirst({ where: { jobId: short, kind: "STARTED" } }),
    );
    const waiting = await waitFor("the long job's reason", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: long } });
      return j.reasonCode === "PLANNED_DRAIN" ? j : null;
    });
    expect(waiting.reasonSentence).toMatch(
      /^Node c1-0 goes into maintenance in .+, and this job may not be cut short for 1 h after it starts/,
    );

    // The plan moved to a second from now: the drain must still wait for it, not come at once.
    const at = new Date(Date.now() + 1_000);
    await db.prisma.node.update({ where: { name: "c1-0" }, data: { drainAt: at } });
    const node = await waitFor(
      "c1-0 to drain at its time",
      async () => {
        const n = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
        return n.state === "DRAINING" || n.state === "REPAIR" ? n : null;
      },
      90_000,
    );
    const drained = await db.prisma.nodeEvent.findFirstOrThrow({
      where: { nodeId: world.nodeIds["c1-0"], fromState: "READY", toState: "DRAINING" },
    });
    expect(drained.at.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(drained.reason).toMatch(/^Maintenance planned by Test Admin: driver 560\./);
    expect(drained.automatic).toBe(false);
    expect(node).toMatchObject({ drainAt: null, drainReason: null, drainPlannedById: null, drainIsManual: true });
    expect(await db.prisma.jobEvent.count({ where: { jobId: long, kind: "STARTED" } })).toBe(0);
  }, 150_000);
});
