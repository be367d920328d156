import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { startStack, submit, waitFor, type AgentSet, type Stack, type World } from "./harness";

describe("drains, repairs and squatting", () => {
  let stack: Stack;
  let db: TestDatabase;
  let world: World;
  let agents: AgentSet;
  const scratch = mkdtempSync(join(tmpdir(), "tranche-repair-"));
  const hookLog = join(scratch, "repairs.log");

  beforeAll(async () => {
    stack = await startStack("drain", {
      nodes: 2,
      workerEnv: { TRANCHE_REPAIR_HOOK: `echo "repair $TRANCHE_NODE_NAME" >> ${hookLog}` },
      waitForAgents: true,
    });
    ({ db, world } = stack);
    agents = stack.agents[0]!;
  });

  afterAll(async () => {
    await stack?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a node that reports itself unhealthy drains: its unallocated job is preempted, it goes to REPAIR, the repair hook fires, and a healthy report returns it to READY — all counted as automatic", async () => {
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
    const id = await submit(db.prisma, world, {
      gpus: 8,
      minRuntime: 0,
      resumable: true,
      gracePeriod: 2,
      command: "echo on $TRANCHE_NODE_NAME; sleep 60",
    });
    await waitFor("the job to run on c1-0", async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).some((c) => c.text.includes("on c1-0")),
    );
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });

    writeFileSync(join(agents.dir, "c1-0", "unhealthy"), "GPU 3: Xid 79, fell off the bus");
    await waitFor(
      "c1-0 to be in REPAIR",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).state === "REPAIR",
      30_000,
    );
    await waitFor(
      "the repair hook to fire",
      async () => existsSync(hookLog) && readFileSync(hookLog, "utf8").includes("repair c1-0"),
    );
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind).slice(0, 4)).toEqual(["SUBMITTED", "STARTED", "PREEMPTED", "REQUEUED"]);
    expect(events[2]!.reasonCode).toBe("DRAIN");
    await waitFor("the job to restart on c1-1", async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).some((c) => c.text.includes("on c1-1")),
    );
    // Each chunk records the node that sent it (logs of multi-node jobs are prefixed with it).
    const chunks = await db.prisma.jobLogChunk.findMany({ where: { jobId: id } });
    expect(chunks.find((c) => c.text.includes("on c1-0"))?.node).toBe("c1-0");
    expect(chunks.find((c) => c.text.includes("on c1-1"))?.node).toBe("c1-1");

    rmSync(join(agents.dir, "c1-0", "unhealthy"));
    await waitFor(
      "c1-0 to be READY again",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).state === "READY",
    );
    const nodeEvents = await db.prisma.nodeEvent.findMany({ where: { nodeId: world.nodeIds["c1-0"] }, orderBy: { id: "asc" } });
    expect(nodeEvents.map((e) => `${e.fromState}->${e.toState}`)).toEqual([
      "READY->DRAINING",
      "DRAINING->REPAIR",
      "REPAIR->READY",
    ]);
    expect(nodeEvents.every((e) => e.automatic)).toBe(true);
  }, 60_000);

  it("a node drained by an operator stays in REPAIR after it empties, whatever it reports, until an operator returns it", async () => {
    // The drain stamped after the cycle's snapshot time (as a drain that lands while a cycle runs is):
    // the repair it causes is never stamped before it ("7 s ago ready -> draining" above "8 s ago
    // draining -> in repair" before).
    const drainedAt = new Date(Date.now() + 5000);
    await db.prisma.node.update({
      where: { name: "c1-0" },
      data: { state: "DRAINING", drainIsManual: true, stateReason: "operator: firmware update", stateChangedAt: drainedAt },
    });
    await db.prisma.nodeEvent.create({
      data: {
        nodeId: world.nodeIds["c1-0"]!,
        at: drainedAt,
        fromState: "READY",
        toState: "DRAINING",
        reason: "operator: firmware update",
        automatic: false,
      },
    });
    await waitFor(
      "c1-0 to be in REPAIR",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).state === "REPAIR",
    );
    await new Promise((r) => setTimeout(r, 3000)); // several healthy heartbeats
    expect((await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).state).toBe("REPAIR");
    const last = await db.prisma.nodeEvent.findFirstOrThrow({
      where: { nodeId: world.nodeIds["c1-0"] },
      orderBy: { id: "desc" },
    });
    expect(last).toMatchObject({ fromState: "DRAINING", toState: "REPAIR", automatic: false });
    expect(last.at.getTime()).toBeGreaterThanOrEqual(drainedAt.getTime());
    const node = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(node.stateChangedAt.getTime()).toBe(last.at.getTime());
  }, 30_000);

  it("an allocated job whose GPUs report under 5% busy starts an idle streak from the agent's readings, but is not flagged as squatting before 30 minutes", async () => {
    const id = await submit(db.prisma, world, {
      gpus: 1,
      minRuntime: 600,
      command: "sleep 60",
      env: { TRANCHE_FAKE_GPU_UTIL: "1" },
    });
    const busy = await submit(db.prisma, world, { gpus: 1, minRuntime: 600, command: "sleep 60" });
    const job = await waitFor("the idle job's streak to start", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.idleSince ? j : null;
    });
    expect(job.state).toBe("RUNNING");
    expect(job.squattingSince).toBeNull();
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: busy } })).idleSince).toBeNull();
  }, 30_000);
});
