import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import {
  stopAgentSets,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

// Each test gets its own database (a fresh world) and stops every process it started.
describe("failure handling", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const procs: Proc[] = [];
  const agentSets: AgentSet[] = [];

  const setup = async (nodes: number) => {
    db = await createTestDatabase("failures");
    world = await makeWorld(db.prisma, { nodes });
    gateway = await startGateway(db.prisma);
  };

  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
    await stopAgentSets(agentSets.splice(0));
    await gateway?.close();
    await db?.drop();
  });

  beforeAll(() => {});
  afterAll(() => {});

  for (const [where, env, said] of [
    ["between deciding and applying a cycle", "TRANCHE_TEST_CRASH_BEFORE_APPLY", "killing myself between decide and apply"],
    [
      "inside its apply transaction, after every write but before COMMIT",
      "TRANCHE_TEST_CRASH_BEFORE_COMMIT",
      "killing myself inside the apply transaction",
    ],
  ] as const) {
    it(`a worker SIGKILLed ${where} leaves nothing behind, and its successor starts every job exactly once`, async () => {
      await setup(2);
      const agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0", "c1-1"]);
      agentSets.push(agents);
      await waitFor(
        "both agents to heartbeat",
        async () => (await db.prisma.node.count({ where: { lastHeartbeatAt: { not: null } } })) === 2,
      );
      const ids: number[] = [];
      for (let i = 0; i < 4; i++)
        ids.push(await submit(db.prisma, world, { gpus: 4, command: `echo "run of $TRANCHE_JOB_ID"; sleep 2` }));

      const crashing = spawnWorker(
        db.url,
        { [env]: "1", TRANCHE_LEASE_TTL_SEC: "2", TRANCHE_WORKER_ID: "crashing" },
        "crashing worker",
      );
      procs.push(crashing);
      await crashing.wait();
      expect(crashing.exit?.signal).toBe("SIGKILL");
      expect(crashing.output).toContain(said);
      // Nothing of its cycle is visible: no job moved, no segment, no event, no cycle record.
      expect(await db.prisma.job.count({ where: { id: { in: ids }, state: "PENDING" } })).toBe(4);
      expect(await db.prisma.runSegment.count()).toBe(0);
      expect(await db.prisma.schedulingCycle.count()).toBe(0);
      expect(await db.prisma.jobEvent.count({ where: { kind: "STARTED" } })).toBe(0);

      const successor = spawnWorker(db.url, { TRANCHE_LEASE_TTL_SEC: "2", TRANCHE_WORKER_ID: "successor" }, "successor");
      procs.push(successor);
      await waitFor(
        "every job to complete",
        async () => (await db.prisma.job.count({ where: { id: { in: ids }, state: "COMPLETED" } })) === 4,
        30_000,
      );
      for (const id of ids) {
        expect(await db.prisma.runSegment.count({ where: { jobId: id } })).toBe(1);
        const out = (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).map((c) => c.text).join("");
        expect(out).toBe(`run of ${id}\n`);
      }
      expect(new Set((await db.prisma.schedulingCycle.findMany()).map((c) => c.leaderId))).toEqual(new Set(["successor"]));
    }, 60_000);
  }

  it("an agent killed with SIGKILL makes its node DOWN after the heartbeat timeout, and its resumable job is requeued and restarted on another node", async () => {
    await setup(2);
    const a0 = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    agentSets.push(a0);
    await waitFor(
      "c1-0 to heartbeat",
      async () => (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).lastHeartbeatAt,
    );
    // Keep c1-1 out of the way until the job runs on c1-0.
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
    const worker = spawnWorker(db.url, { TRANCHE_POLICY: '{"heartbeatTimeout":3,"fenceGrace":2}' });
    procs.push(worker);
    const id = await submit(db.prisma, world, {
      gpus: 8,
      resumable: true,
      command: "echo started on $TRANCHE_NODE_NAME; sleep 60",
    });
    await waitFor("the job to run on c1-0", async () => {
      const logs = await db.prisma.jobLogChunk.findMany({ where: { jobId: id } });
      return logs.some((l) => l.text.includes("started on c1-0"));
    });
    const a1 = await spawnAgents(db.prisma, world, gateway.url, ["c1-1"]);
    agentSets.push(a1);
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });

    await a0.proc.stop("SIGKILL");
    const down = await waitFor(
      "c1-0 to be DOWN",
      async () => {
        const n = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
        return n.state === "DOWN" ? n : null;
      },
      20_000,
    );
    expect(down.stateReason).toMatch(/missed heartbeats/);
    await waitFor(
      "the job to restart on c1-1",
      async () => {
        const logs = await db.prisma.jobLogChunk.findMany({ where: { jobId: id } });
        return logs.some((l) => l.text.includes("started on c1-1"));
      },
      20_000,
    );
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "LOST", "STARTED"]);
    expect(events[2]!.sentence).toMatch(/requeued at once/);
    const segs = await db.prisma.runSegment.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(segs[0]!.endReason).toBe("LOST");
    expect(segs[0]!.charged).toBe(true); // the lost segment is still charged
    expect(segs[1]!.endedAt).toBeNull();
    expect((await db.prisma.nodeEvent.findMany({ where: { nodeId: world.nodeIds["c1-0"], toState: "DOWN" } })).length).toBe(1);
  }, 60_000);

  it("a worker whose cycle never ends stops renewing its lease, exits 1 for its supervisor, and a standby takes over", async () => {
    await setup(1);
    const stuck = spawnWorker(
      db.url,
      {
        TRANCHE_WORKER_ID: "stuck",
        TRANCHE_TEST_HANG_BEFORE_APPLY: "1",
        TRANCHE_MAX_CYCLE_MS: "2000",
        TRANCHE_LEASE_TTL_SEC: "2",
      },
      "stuck",
    );
    procs.push(stuck);
    await stuck.waitForOutput("waiting for ever between decide and apply");
    const standby = spawnWorker(db.url, { TRANCHE_WORKER_ID: "standby", TRANCHE_LEASE_TTL_SEC: "2" }, "standby");
    procs.push(standby);
    await stuck.waitForOutput(/cycle running for \d+ s \(limit 2 s\): no longer renewing the lease/, 15_000);
    await waitFor("the stuck worker to exit", async () => stuck.exit !== null, 15_000);
    expect(stuck.exit).toEqual({ code: 1, signal: null });
    await standby.waitForOutput("is now the leader", 15_000);
    await waitFor(
      "a cycle by the standby",
      async () => (await db.prisma.schedulingCycle.count({ where: { leaderId: "standby" } })) > 0,
    );
    expect(await db.prisma.schedulingCycle.count({ where: { leaderId: "stuck" } })).toBe(0);
  }, 60_000);

  it("two workers: exactly one is the leader, and when it is SIGKILLed the other takes over within 10 s", async () => {
    await setup(1);
    const w1 = spawnWorker(db.url, { TRANCHE_WORKER_ID: "w1" }, "w1");
    const w2 = spawnWorker(db.url, { TRANCHE_WORKER_ID: "w2" }, "w2");
    procs.push(w1, w2);
    await waitFor("a leader", async () => /is now the leader/.test(w1.output + w2.output));
    await new Promise((r) => setTimeout(r, 3000));
    const leaders = [w1, w2].filter((w) => w.output.includes("is now the leader"));
    expect(leaders).toHaveLength(1);
    const leader = leaders[0]!;
    const standby = leader === w1 ? w2 : w1;
    const cycles = await db.prisma.schedulingCycle.findMany();
    expect(cycles.length).toBeGreaterThan(0);
    expect(new Set(cycles.map((c) => c.leaderId))).toEqual(new Set([leader.name]));

    await leader.stop("SIGKILL");
    const killedAt = Date.now();
    await standby.waitForOutput("is now the leader", 12_000);
    const tookOver = Date.now() - killedAt;
    await waitFor(
      "a cycle by the new leader",
      async () => (await db.prisma.schedulingCycle.count({ where: { leaderId: standby.name } })) > 0,
    );
    expect(tookOver).toBeLessThan(10_000);
    const lease = await db.prisma.workerLease.findUniqueOrThrow({ where: { name: "scheduler" } });
    expect(lease.holderId).toBe(standby.name);
  }, 60_000);
});
