import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { applyCyclePlan, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { startGateway, startHeartbeatScene, submit, type HeartbeatScene } from "./harness";

/**
 * Operators upgrade the control plane first and the agents one by one after, so today's agent route
 * must take what an agent of an older release sends. The bodies below are what the agent of release
 * e7e0ad3 (2026-12-01) sends: its beat() (apps/node-agent/src/agent.ts) with its runner's reports(),
 * written out field by field. It knew nothing of agentStartId, sentAt, checkpointAt, logsDone or session,
 * which came later, and it reads the answer with its own schema (frozen below): a server that required a
 * newer field, or answered without one that agent needs, would leave every old agent out of contact, and
 * its jobs fenced, until upgraded. (An agent of that release was also run against today's server by hand
 * for this check: enrol, run, exit codes, cancel, logs and its fence all worked.)
 */
const OLD_AGENT_VERSION = "tranche-agent/0.1.0 (protocol 1)";
const oldGpus = Array.from({ length: 8 }, (_, index) => ({
  index,
  uuid: `GPU-fake-${String(index).padStart(24, "0")}`,
  name: "Fake GPU",
  memoryMiB: 81_920,
  utilizationPercent: 90,
}));
const oldBody = (jobs: object[], logs: object[] = []) => ({
  nodeName: "c1-0",
  agentVersion: OLD_AGENT_VERSION,
  health: { healthy: true, errors: [] },
  gpus: oldGpus,
  busyPercent: 90,
  jobs,
  logs,
});

/** What that agent parses the answer with (its heartbeatResponseSchema, STOP_REASONS and runAssignmentSchema). */
const segmentId = z.string().regex(/^[1-9][0-9]{0,18}$/);
const oldAnswer = z.object({
  nodeId: z.string(),
  nodeName: z.string(),
  state: z.enum(["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"]),
  serverTime: z.iso.datetime(),
  heartbeatIntervalSec: z.number().int().positive(),
  run: z.array(
    z.object({
      jobId: z.number().int().positive(),
      segmentId,
      name: z.string(),
      command: z.string(),
      env: z.record(z.string(), z.string()),
      gpuIndexes: z.array(z.number().int().min(0)),
      nodes: z.array(z.string()),
      rank: z.number().int().min(0),
      startBy: z.iso.datetime(),
      maxRuntimeSec: z.number().int().positive().nullable(),
      gracePeriodSec: z.number().int().min(0),
      user: z.string().max(200).optional(),
    }),
  ),
  stop: z.array(
    z.object({
      jobId: z.number().int().positive(),
      segmentId,
      reason: z.enum(["PREEMPT", "CANCEL", "KILL", "LOST", "ENDED", "UNKNOWN"]),
      graceUntil: z.iso.datetime(),
    }),
  ),
  acknowledged: z.array(segmentId),
  assignments: z.string().max(128).optional(),
  fence: z.object({ afterSec: z.number().int().positive(), graceSec: z.number().int().min(0) }).optional(),
});

describe("an agent of an older release against today's agent route", () => {
  let scene: HeartbeatScene;
  let gateway: Awaited<ReturnType<typeof startGateway>>;

  beforeAll(async () => {
    scene = await startHeartbeatScene("agent_old_release");
    gateway = await startGateway(scene.db.prisma);
  });
  afterAll(async () => {
    await gateway?.close();
    await scene?.db.drop();
  });

  const post = async (body: object) => {
    const r = await fetch(`${gateway.url}/api/agent/v1/heartbeat`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer cred-c1-0" },
      body: JSON.stringify(body),
    });
    return { status: r.status, json: (await r.json()) as unknown };
  };

  it("is answered as it expects: its job's start, then its report of the run, its output and its exit are recorded", async () => {
    const { db, world } = scene;
    const first = await post(oldBody([]));
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const id = await submit(db.prisma, world, { command: "echo hi", gpus: 8, budget: "lab/a" });
    const now = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, now), "test", { loadMs: 0, decideMs: 0 });

    const assigned = oldAnswer.parse((await post(oldBody([]))).json);
    expect(assigned.fence).toBeDefined();
    const run = assigned.run.find((r) => r.jobId === id)!;
    expect(run.command).toBe("echo hi");
    const seg = run.segmentId;
    const launchedAt = new Date().toISOString();

    const running = await post(
      oldBody(
        [{ jobId: id, segmentId: seg, status: "RUNNING", pid: 4242, launchedAt, exitCode: null, signal: null, endedAt: null }],
        [{ jobId: id, segmentId: seg, stream: "stdout", text: "hi\n" }],
      ),
    );
    expect(running.status, JSON.stringify(running.json)).toBe(200);
    expect(oldAnswer.parse(running.json).stop).toEqual([]);

    const exited = await post(
      oldBody([
        {
          jobId: id,
          segmentId: seg,
          status: "EXITED",
          pid: 4242,
          launchedAt,
          exitCode: 0,
          signal: null,
          endedAt: new Date().toISOString(),
        },
      ]),
    );
    expect(exited.status, JSON.stringify(exited.json)).toBe(200);
    expect(oldAnswer.parse(exited.json).acknowledged).toEqual([seg]);

    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("COMPLETED");
    expect(job.exitCode).toBe(0);
    expect((await db.prisma.jobLogChunk.findMany({ where: { jobId: id } })).map((c) => c.text)).toEqual(["hi\n"]);
    const node = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(node.agentVersion).toBe(OLD_AGENT_VERSION);
  });

  it("a fenced run it reports (its signal FENCED, no exit code) is lost, not failed", async () => {
    const { db, world } = scene;
    const id = await submit(db.prisma, world, { command: "sleep 600", gpus: 8, budget: "lab/a", resumable: true });
    const now = Math.floor(Date.now() / 1000);
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, now), "test", { loadMs: 0, decideMs: 0 });
    const seg = oldAnswer.parse((await post(oldBody([]))).json).run.find((r) => r.jobId === id)!.segmentId;
    const at = new Date().toISOString();
    const r = await post(
      oldBody([
        { jobId: id, segmentId: seg, status: "EXITED", pid: 7, launchedAt: at, exitCode: null, signal: "FENCED", endedAt: at },
      ]),
    );
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const job = await db.prisma.job.findUniqueOrThrow({ where: { id } });
    expect(job.state).toBe("PENDING");
    expect((await db.prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: { id: "asc" } })).map((e) => e.kind)).toEqual([
      "SUBMITTED",
      "STARTED",
      "LOST",
    ]);
  });
});
