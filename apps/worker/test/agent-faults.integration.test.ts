import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { cancelJob } from "@tranche/domain";
import {
  stopAgentSets,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startAgentProcess,
  startGateway,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

/** A live process (not a zombie: orphans may wait unreaped here) in process group `pgid`. */
function groupAlive(pgid: number): boolean {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .some((pid) => {
      try {
        const rest = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        return Number(rest[2]) === pgid && rest[0] !== "Z";
      } catch {
        return false;
      }
    });
}

// One job must never take its agent (or the agent's other jobs) down, and a restarted agent must
// never start a job the control plane no longer gives it (issue 15, item 1).
describe("an agent survives its jobs' faults", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const procs: Proc[] = [];
  const agentSets: AgentSet[] = [];

  const setup = async () => {
    db = await createTestDatabase("agentfaults");
    world = await makeWorld(db.prisma, { nodes: 1 });
    gateway = await startGateway(db.prisma);
  };

  afterEach(async () => {
    for (const p of procs.splice(0)) await p.stop();
    await stopAgentSets(agentSets.splice(0));
    await gateway?.close();
    await db?.drop();
  });

  const heartbeatAt = async () =>
    (await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } })).lastHeartbeatAt?.getTime() ?? 0;

  it("a job whose launch fails (an env value over the OS limit: E2BIG) ends FAILED with LAUNCH_FAILED; the agent and its other job live on", async () => {
    await setup();
    const agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    agentSets.push(agents);
    await waitFor("the agent to heartbeat", async () => (await heartbeatAt()) > 0);
    const steady = await submit(db.prisma, world, { gpus: 4, command: "echo steady up; sleep 60" });
    const broken = await submit(db.prisma, world, { gpus: 4, command: "echo never" });
    // Straight into the database, as if the API had no limit: one value over Linux's 128 KiB per string.
    await db.prisma.job.update({ where: { id: broken }, data: { env: { HUGE: "x".repeat(200_000) } } });
    const worker = spawnWorker(db.url);
    procs.push(worker);

    const failed = await waitFor("the broken job to fail", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: broken } });
      return j.state === "FAILED" ? j : null;
    });
    expect(failed.exitSignal).toBe("LAUNCH_FAILED");
    expect(failed.exitCode).toBeNull();
    const event = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: broken, kind: "FAILED" } });
    expect(event.reasonCode).toBe("LAUNCH_FAILED");
    expect(event.sentence).toMatch(/Could not be started \(spawn E2BIG\)/);
    expect(event.actorKind).toBe("AGENT");
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: broken } });
    expect(seg.endReason).toBe("FAIL");
    expect(seg.endDetail).toMatch(/^LAUNCH_FAILED: spawn E2BIG/);
    expect(agents.proc.output).toMatch(/could not be started: spawn E2BIG/);

    // The agent lives on: still heartbeating, its other job still running, and it takes new work.
    const before = await heartbeatAt();
    await waitFor("another heartbeat", async () => (await heartbeatAt()) > before);
    expect(agents.proc.exit).toBeNull();
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: steady } })).state).toBe("RUNNING");
    const next = await submit(db.prisma, world, { gpus: 4, command: "echo next ran" });
    await waitFor(
      "the next job to complete",
      async () => (await db.prisma.job.findUniqueOrThrow({ where: { id: next } })).state === "COMPLETED",
    );
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id: steady } })).state).toBe("RUNNING");
  }, 60_000);

  it("a restarted agent does not start a job it had stored as WAITING once the control plane no longer assigns it", async () => {
    await setup();
    const agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    agentSets.push(agents);
    await waitFor("the agent to heartbeat", async () => (await heartbeatAt()) > 0);
    await agents.proc.stop("SIGTERM");

    // While the agent was away its waiting job was cancelled. Its state.json still holds it.
    const id = await submit(db.prisma, world, { gpus: 4, command: "echo cancelled" });
    await cancelJob(db.prisma, world.actor, id);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("CANCELLED");
    const marker = join(agents.dir, "cancelled-job-ran");
    const statePath = join(agents.dir, "c1-0", "state.json");
    const state = existsSync(statePath)
      ? (JSON.parse(readFileSync(statePath, "utf8")) as { version: 1; jobs: unknown[] })
      : { version: 1, jobs: [] as unknown[] };
    state.jobs.push({
      jobId: id,
      segmentId: "424242",
      gpuIndexes: [0, 1, 2, 3],
      status: "WAITING",
      pid: null,
      pidStart: null,
      launchedAt: null,
      exitCode: null,
      signal: null,
      endedAt: null,
      stopReason: null,
      killAt: null,
      offsets: { stdout: 0, stderr: 0 },
      assignment: {
        jobId: id,
        segmentId: "424242",
        name: "cancelled",
        command: `touch ${marker}`,
        env: {},
        gpuIndexes: [0, 1, 2, 3],
        nodes: ["c1-0"],
        rank: 0,
        startBy: new Date().toISOString(),
        maxRuntimeSec: null,
        gracePeriodSec: 1,
      },
    });
    writeFileSync(statePath, JSON.stringify(state));

    const before = await heartbeatAt();
    const restarted = startAgentProcess(gateway.url, agents.dir, ["c1-0"], null);
    agentSets.push(restarted);
    await waitFor("the restarted agent to heartbeat twice", async () => (await heartbeatAt()) > before + 1000);
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(marker)).toBe(false);
    expect(restarted.proc.output).toContain(`job ${id} (segment 424242) is no longer assigned here; not starting it`);
    const after = JSON.parse(readFileSync(statePath, "utf8")) as { jobs: { segmentId: string }[] };
    expect(after.jobs.map((j) => j.segmentId)).not.toContain("424242");
  }, 60_000);

  /**
   * One agent on c1-0 (with `agentArgs`) running two jobs that print "up" and sleep: one resumable, one
   * neither resumable nor requeued, scheduled by a worker process.
   */
  async function twoRunningJobs(agentArgs: string[] = []) {
    await setup();
    const agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"], undefined, agentArgs);
    agentSets.push(agents);
    await waitFor("the agent to heartbeat", async () => (await heartbeatAt()) > 0);
    const resumable = await submit(db.prisma, world, { gpus: 4, resumable: true, command: "echo up; sleep 60" });
    const once = await submit(db.prisma, world, { gpus: 4, resumable: false, requeue: false, command: "echo up; sleep 60" });
    const worker = spawnWorker(db.url);
    procs.push(worker);
    await waitFor("both jobs to run", async () => {
      const logs = await db.prisma.jobLogChunk.findMany({ where: { jobId: { in: [resumable, once] } } });
      return new Set(logs.filter((l) => l.text.includes("up")).map((l) => l.jobId)).size === 2;
    });
    return { agents, resumable, once, worker };
  }

  it("a restarted agent that finds its jobs gone without an exit status (the host went down with them) ends them requeued or LOST, never FAILED", async () => {
    const { agents, resumable, once, worker } = await twoRunningJobs();
    // The agent stops (its jobs live on), then its host takes them down: SIGKILL to each job's whole
    // process group, wrapper included, so no exit status is written; then the agent comes back.
    await worker.stop();
    await agents.proc.stop("SIGTERM");
    const state = JSON.parse(readFileSync(join(agents.dir, "c1-0", "state.json"), "utf8")) as { jobs: { pid: number }[] };
    for (const { pid } of state.jobs) process.kill(-pid, "SIGKILL");
    const restarted = startAgentProcess(gateway.url, agents.dir, ["c1-0"], null);
    agentSets.push(restarted);

    const ended = await waitFor("both jobs to end their runs", async () => {
      const jobs = await db.prisma.job.findMany({ where: { id: { in: [resumable, once] } }, orderBy: { id: "asc" } });
      return jobs.every((j) => j.state !== "RUNNING") ? jobs : null;
    });
    expect(ended.map((j) => j.state)).toEqual(["PENDING", "LOST"]);
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: { in: [resumable, once] } }, orderBy: { id: "asc" } });
    expect(events.some((e) => e.kind === "FAILED")).toBe(false);
    expect(events.find((e) => e.jobId === resumable && e.kind === "LOST")!.sentence).toMatch(
      /found neither its processes nor their exit status .*; requeued with its original submit time/,
    );
  }, 60_000);

  it("an agent stopped with --stop-jobs-on-exit (the demo's, at Ctrl-C) ends its jobs as requeued or LOST, never FAILED, and leaves no process behind", async () => {
    const { agents, resumable, once, worker } = await twoRunningJobs(["--stop-jobs-on-exit"]);
    const state = JSON.parse(readFileSync(join(agents.dir, "c1-0", "state.json"), "utf8")) as { jobs: { pid: number }[] };
    const pids = state.jobs.map((j) => j.pid);
    // As `npm start` stops: the worker first, then the agents (the web app last).
    await worker.stop();
    await agents.proc.stop("SIGTERM");
    expect(agents.proc.output).toContain("reported stopped by the shutdown (requeued, not failed)");
    for (const pid of pids) expect(() => process.kill(-pid, 0)).toThrow(); // the job's process group is gone
    const a = await db.prisma.job.findUniqueOrThrow({ where: { id: resumable } });
    const b = await db.prisma.job.findUniqueOrThrow({ where: { id: once } });
    expect([a.state, b.state]).toEqual(["PENDING", "LOST"]);
    const events = await db.prisma.jobEvent.findMany({ where: { jobId: { in: [resumable, once] } }, orderBy: { id: "asc" } });
    expect(events.filter((e) => e.jobId === resumable).map((e) => e.kind)).toEqual(["SUBMITTED", "STARTED", "REQUEUED"]);
    expect(events.find((e) => e.jobId === resumable && e.kind === "REQUEUED")!.sentence).toMatch(
      /Stopped because its node's agent shut down \(Tranche was stopped\); requeued/,
    );
    expect(events.some((e) => e.kind === "FAILED")).toBe(false);
  }, 60_000);

  it("a fresh agent whose state folder was lost while its job ran stops that job's processes before it enrolls or reports anything (no job runs twice)", async () => {
    await setup();
    const agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    agentSets.push(agents);
    await waitFor("the agent to heartbeat", async () => (await heartbeatAt()) > 0);
    const id = await submit(db.prisma, world, { gpus: 4, resumable: true, command: "echo up; sleep 120" });
    const worker = spawnWorker(db.url);
    procs.push(worker);
    await waitFor("the job to run", async () =>
      (await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).some((l) => l.text.includes("up")),
    );
    const state = JSON.parse(readFileSync(join(agents.dir, "c1-0", "state.json"), "utf8")) as { jobs: { pid: number }[] };
    const pgid = state.jobs[0]!.pid;
    try {
      await worker.stop();
      await agents.proc.stop("SIGTERM");
      expect(groupAlive(pgid)).toBe(true); // a stopped agent leaves its jobs running
      // The host comes back with an empty state folder (a fresh disk, a container without its volume)
      // and a new enrollment token: the new agent has no record of the job still running on its GPUs.
      rmSync(agents.dir, { recursive: true, force: true });
      mkdirSync(agents.dir);
      const fresh = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"], agents.dir);
      agentSets.push(fresh);
      await fresh.proc.waitForOutput("enrolled in cluster");
      expect(groupAlive(pgid)).toBe(false);
      const out = fresh.proc.output;
      expect(out).toMatch(
        new RegExp(`stopping process group ${pgid} \\(pids [\\d,]+\\): job ${id}, segment \\d+, .*unknown to this agent`),
      );
      expect(out.indexOf("stopping process group")).toBeLessThan(out.indexOf("enrolled in cluster"));
    } finally {
      try {
        process.kill(-pgid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }, 60_000);
});
