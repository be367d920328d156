import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import {
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  stopAgentSets,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

// R9, a run that finished while its agent was paused (SIGSTOP): the node goes DOWN and the run is
// declared lost; when the agent resumes it reports the exit (code 0, from before the fence), and the
// job is COMPLETED, not lost or run again. When it had already started again elsewhere, that run goes on.
describe("an exit reported after its run was declared lost", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const procs: Proc[] = [];
  const agentSets: AgentSet[] = [];
  // A wide timeout, so the job's 2 s end comes well before the fence even on a busy machine.
  const policy = '{"heartbeatTimeout":10,"fenceGrace":2}';

  afterEach(async () => {
    for (const a of agentSets) if (!a.proc.exit) process.kill(a.proc.pid, "SIGCONT");
    for (const p of procs.splice(0)) await p.stop();
    await stopAgentSets(agentSets.splice(0));
    await gateway?.close();
    await db?.drop();
    delete process.env.TRANCHE_POLICY;
  });

  async function start(name: string, nodes: string[]): Promise<AgentSet[]> {
    process.env.TRANCHE_POLICY = policy; // the gateway tells agents the same fence
    db = await createTestDatabase(name);
    world = await makeWorld(db.prisma, { nodes: nodes.length });
    gateway = await startGateway(db.prisma);
    for (const n of nodes) agentSets.push(await spawnAgents(db.prisma, world, gateway.url, [n]));
    await waitFor(
      "every agent to heartbeat",
      async () => (await db.prisma.node.count({ where: { lastHeartbeatAt: { not: null } } })) === nodes.length,
    );
    procs.push(spawnWorker(db.url, { TRANCHE_POLICY: policy }));
    return agentSets;
  }

  /**
   * Pauses the agent as soon as it launched job `id`, and resumes it once the control plane declared the
   * run lost (and, with `runs`, once the job has had that many runs).
   */
  async function pauseUntilLost(agent: AgentSet, id: number, runs = 1): Promise<void> {
    await agent.proc.waitForOutput(`job ${id} started`);
    process.kill(agent.proc.pid, "SIGSTOP");
    try {
      await waitFor(
        "the run to be declared lost",
        async () =>
          (await db.prisma.jobEvent.count({ where: { jobId: id, kind: "LOST" } })) > 0 &&
          (await db.prisma.runSegment.count({ where: { jobId: id } })) >= runs,
        60_000,
      );
    } finally {
      process.kill(agent.proc.pid, "SIGCONT");
    }
  }

  it("a job that finished (exit code 0) while its agent was paused is COMPLETED, not lost, once the agent reports it", async () => {
    const [a0] = await start("late-exit", ["c1-0"]);
    const id = await submit(db.prisma, world, { gpus: 8, resumable: false, command: "sleep 2" });
    await pauseUntilLost(a0!, id);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("LOST");
    await waitFor(
      "the job to be completed",
      async () => (await db.prisma.job.findUniqueOrThrow({ where: { id } })).state === "COMPLETED",
      30_000,
    ).catch((e: Error) => {
      throw new Error(`${e.message}\n${a0!.proc.output.slice(-3000)}`);
    });
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.exitCode).toBe(0);
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "LOST", "FINISHED"]);
    expect(events.at(-1)!.sentence).toMatch(/finished \(exit code 0\) before its agent, out of contact, could have stopped it/);
    const segments = await db.prisma.runSegment.findMany({ where: { jobId: id } });
    expect(segments.map((s) => s.endReason)).toEqual(["FINISH"]);
    // Its owner hears that it finished, after the word that it was lost.
    const told = await db.prisma.notification.findMany({ where: { jobId: id }, orderBy: { createdAt: "asc" } });
    expect(told.map((n) => n.kind).filter((k) => k !== "STARTED")).toEqual(["LOST", "FINISHED"]);
    // It ended before the loss was declared: its end is the process's, not the loss's.
    expect(job.finishedAt!.getTime()).toBeLessThan(segments[0]!.endedAt!.getTime());
  }, 120_000);

  it("a job already started again elsewhere keeps its new run, and its timeline says the lost one had finished", async () => {
    const [a0] = await start("late-exit-again", ["c1-0", "c1-1"]);
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "CORDONED" } });
    const id = await submit(db.prisma, world, {
      gpus: 8,
      resumable: true,
      command: 'if [ "$TRANCHE_NODE_NAME" = c1-0 ]; then sleep 2; else sleep 120; fi',
    });
    await a0!.proc.waitForOutput(`job ${id} started`);
    await db.prisma.node.update({ where: { name: "c1-1" }, data: { state: "READY" } });
    await pauseUntilLost(a0!, id, 2);
    await waitFor(
      "the lost run's exit to be noted",
      async () => (await db.prisma.jobEvent.count({ where: { jobId: id, reasonCode: "LATE_EXIT" } })) > 0,
      30_000,
    );
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("RUNNING");
    const note = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: id, reasonCode: "LATE_EXIT" } });
    expect(note.sentence).toMatch(/had in fact finished \(exit code 0\) .* already started again; the new run goes on/);
    expect(await db.prisma.runSegment.count({ where: { jobId: id, endedAt: null } })).toBe(1);
    // Requeued and running: nobody is told it was lost or finished.
    const told = await db.prisma.notification.findMany({ where: { jobId: id } });
    expect(told.map((n) => n.kind).filter((k) => k !== "STARTED")).toEqual([]);
  }, 120_000);
});
