// A START reaches its agent through the long-poll (POST /api/agent/v1/wait), not the next heartbeat:
// with heartbeats every 60 s, a job submitted right after the agent's first heartbeat still starts,
// runs and completes, and the heartbeat that fetched it came after the START was committed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { agentWakePayloads, assignmentsDigest, assignmentsFor, serveAgentProtocol } from "@tranche/domain/runtime";
import {
  cleanupAgentDir,
  makeWorld,
  spawnAgents,
  spawnWorker,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

const HEARTBEAT_SEC = 60;

describe("agents learn of new work through the long-poll", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof serveAgentProtocol>>;
  let worker: Proc;
  let agents: AgentSet;
  let credential: string;

  beforeAll(async () => {
    db = await createTestDatabase("longpoll");
    world = await makeWorld(db.prisma, { nodes: 1 });
    // Agents are told their heartbeat period by the server (enroll and heartbeat responses).
    process.env.TRANCHE_AGENT_HEARTBEAT_SEC = String(HEARTBEAT_SEC);
    gateway = await serveAgentProtocol(db.prisma, 0, "127.0.0.1", { databaseUrl: db.url });
    agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    // The node must not be declared DOWN between two 60 s heartbeats.
    worker = spawnWorker(db.url, { TRANCHE_POLICY: JSON.stringify({ heartbeatTimeout: 300 }) });
    await worker.waitForOutput("is now the leader");
    await waitFor("the agent's first heartbeat", async () =>
      (await db.prisma.node.findUniqueOrThrow({ where: { id: world.nodeIds["c1-0"]! } })).lastHeartbeatAt !== null ? true : null,
    );
    credential = readFileSync(join(agents.dir, "c1-0", "credential"), "utf8").trim();
  });

  afterAll(async () => {
    await worker?.stop();
    await agents?.proc.stop();
    if (agents) cleanupAgentDir(agents);
    await gateway?.close();
    await db?.drop();
    process.env.TRANCHE_AGENT_HEARTBEAT_SEC = "1";
  });

  it("a job submitted after the agent's first heartbeat starts and completes before its second periodic heartbeat", async () => {
    const node = world.nodeIds["c1-0"]!;
    const firstBeat = (await db.prisma.node.findUniqueOrThrow({ where: { id: node } })).lastHeartbeatAt!;
    const id = await submit(db.prisma, world, { gpus: 2, command: 'echo "ran on $CUDA_VISIBLE_DEVICES"' });
    // Well inside one heartbeat period: only the long-poll can have told the agent.
    const job = await waitFor(
      "the job to complete",
      async () => {
        const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
        return j.state === "COMPLETED" ? j : null;
      },
      (HEARTBEAT_SEC - 15) * 1000,
    );
    expect(job.exitCode).toBe(0);
    const started = await db.prisma.jobEvent.findFirstOrThrow({ where: { jobId: id, kind: "STARTED" } });
    const segment = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id } });
    // Ordering: first heartbeat -> START committed -> the agent heartbeats (woken) -> launch -> exit reported.
    expect(started.at.getTime()).toBeGreaterThanOrEqual(firstBeat.getTime() - 1000);
    expect(segment.endedAt).not.toBeNull();
    const now = await db.prisma.node.findUniqueOrThrow({ where: { id: node } });
    expect(now.lastHeartbeatAt!.getTime()).toBeGreaterThan(firstBeat.getTime());
    expect(now.state).toBe("READY");
    expect(agents.proc.output).not.toMatch(/cannot reach|refused|unavailable/);
  });

  it("the wait endpoint: unchanged digest holds until the timeout; a stale one answers at once; bad callers are refused", async () => {
    const post = async (body: unknown, auth: string | null = credential) => {
      const res = await fetch(`${gateway.url}/api/agent/v1/wait`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as { changed?: boolean; error?: { code: string } } };
    };
    // The node's digest as the server computes it (the job above has finished: nothing assigned).
    const now = await assignmentsFor(db.prisma, world.nodeIds["c1-0"]!, new Date());
    expect(now).toEqual({ run: [], stop: [] });
    const digest = assignmentsDigest(now.run, now.stop);
    expect(digest).toMatch(/^[\w-]{22}$/);
    expect(await post({ nodeName: "c1-0", assignments: digest, timeoutSec: 1 })).toEqual({
      status: 200,
      body: { changed: false },
    });
    expect(await post({ nodeName: "c1-0", assignments: "stale", timeoutSec: 20 })).toEqual({
      status: 200,
      body: { changed: true },
    });
    expect((await post({ nodeName: "c1-0", assignments: digest }, null)).status).toBe(401);
    expect((await post({ nodeName: "c1-0", assignments: digest }, "nope")).status).toBe(401);
    const wrong = await post({ nodeName: "c1-1", assignments: digest });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error?.code).toBe("WRONG_NODE");
    expect((await post({ nodeName: "c1-0" })).status).toBe(400);
  });

  it("wake payloads stay under PostgreSQL's 8,000-byte NOTIFY limit and carry every node", () => {
    const ids = Array.from({ length: 1024 }, (_, i) => `cm${String(i).padStart(23, "0")}`);
    const payloads = agentWakePayloads(ids);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    expect(payloads.flatMap((p) => JSON.parse(p) as string[])).toEqual(ids);
  });
});
