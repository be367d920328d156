import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { applyCyclePlan, acquireOrRenewLease, issueEnrollmentTokens, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import type { HeartbeatRequestInput } from "@tranche/contracts";
import { nodeReasonWords } from "@tranche/contracts/format";
import { getRepairQueue, listNodes } from "@tranche/domain";
import { fakeGpus, makeWorld, startGateway, submit, type World } from "./harness";

describe("the agent protocol", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const cred: Record<string, string> = {};

  const post = async (route: string, body: unknown, credential?: string) => {
    const res = await fetch(`${gateway.url}/api/agent/v1/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      json: (await res.json()) as { error?: { code: string; message: string } } & Record<string, unknown>,
    };
  };
  const beat = (nodeName: string, extra: Partial<HeartbeatRequestInput> = {}): HeartbeatRequestInput => ({
    nodeName,
    agentVersion: "test",
    health: { healthy: true, errors: [] },
    gpus: fakeGpus(),
    busyPercent: 50,
    jobs: [],
    logs: [],
    ...extra,
  });
  /** Everything an agent could change, to prove a refused report changed nothing. */
  const dump = async () =>
    JSON.stringify(
      {
        nodes: await db.prisma.node.findMany({ orderBy: { name: "asc" } }),
        jobs: await db.prisma.job.findMany({ orderBy: { id: "asc" } }),
        segments: await db.prisma.runSegment.findMany({ orderBy: { id: "asc" } }),
        logs: await db.prisma.jobLogChunk.count(),
        events: await db.prisma.jobEvent.count(),
        usage: await db.prisma.usageLedger.findMany(),
      },
      (_, v) => (typeof v === "bigint" ? String(v) : v),
    );

  beforeAll(async () => {
    db = await createTestDatabase("agentproto");
    world = await makeWorld(db.prisma, { nodes: 2 });
    gateway = await startGateway(db.prisma);
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
  });

  it("an enrollment token buys a node credential once; the database keeps only its hash", async () => {
    const tokens = await issueEnrollmentTokens(db.prisma, world.clusterId, ["c1-0", "c1-1"]);
    for (const t of tokens) {
      const r = await post("enroll", { token: t.token, nodeName: t.nodeName, agentVersion: "test", gpus: fakeGpus() });
      expect(r.status).toBe(200);
      cred[t.nodeName!] = r.json.credential as string;
    }
    const again = await post("enroll", { token: tokens[0]!.token, nodeName: "c1-0", agentVersion: "test", gpus: fakeGpus() });
    expect(again.status).toBe(401);
    expect(again.json.error?.code).toBe("INVALID_ENROLLMENT_TOKEN");
    const node = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(node.agentCredentialHash).not.toContain(cred["c1-0"]!);
    expect(node.agentCredentialHash).toHaveLength(64);
  });

  it("a token issued for one node does not enroll another", async () => {
    const [t] = await issueEnrollmentTokens(db.prisma, world.clusterId, ["c1-9"]);
    const r = await post("enroll", { token: t!.token, nodeName: "c1-0", agentVersion: "test", gpus: fakeGpus() });
    expect(r.status).toBe(401);
    expect(r.json.error?.message).toMatch(/issued for node c1-9, not c1-0/);
  });

  it("an agent reporting for another node, or about another node's job, is refused with a specific error and nothing changes", async () => {
    // A job placed on c1-1 by a real cycle.
    await db.prisma.node.update({ where: { name: "c1-0" }, data: { state: "CORDONED" } });
    const id = await submit(db.prisma, world, { gpus: 8, command: "sleep 100" });
    expect(await acquireOrRenewLease(db.prisma, "test", 30)).toBe(true);
    const input = await loadCycleInput(db.prisma, world.clusterId, Math.floor(Date.now() / 1000));
    const result = runCycle(input.snapshot, input.policy, input.now);
    await applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id } });
    const own = await post("heartbeat", beat("c1-1"), cred["c1-1"]);
    expect(own.status).toBe(200);
    expect((own.json.run as { jobId: number }[]).map((r) => r.jobId)).toEqual([id]);

    const before = await dump();
    const exited = {
      jobId: id,
      segmentId: String(seg.id),
      status: "EXITED" as const,
      pid: 1,
      launchedAt: null,
      exitCode: 0,
      signal: null,
      endedAt: new Date().toISOString(),
    };

    const wrongNode = await post("heartbeat", beat("c1-1", { jobs: [exited] }), cred["c1-0"]);
    expect(wrongNode.status).toBe(403);
    expect(wrongNode.json.error?.code).toBe("WRONG_NODE");
    expect(wrongNode.json.error?.message).toBe(
      "This credential belongs to node c1-0; it cannot report for node c1-1. Nothing was recorded.",
    );

    const foreignJob = await post("heartbeat", beat("c1-0", { jobs: [exited] }), cred["c1-0"]);
    expect(foreignJob.status).toBe(403);
    expect(foreignJob.json.error?.code).toBe("FOREIGN_JOB");
    expect(foreignJob.json.error?.message).toContain(`job ${id} (segment ${seg.id}) is not placed on node c1-0`);

    const foreignLog = await post(
      "heartbeat",
      beat("c1-0", { logs: [{ jobId: id, segmentId: String(seg.id), stream: "stdout", text: "forged" }] }),
      cred["c1-0"],
    );
    expect(foreignLog.status).toBe(403);

    const mismatched = await post("heartbeat", beat("c1-1", { jobs: [{ ...exited, jobId: id + 1 }] }), cred["c1-1"]);
    expect(mismatched.status).toBe(403);
    expect(mismatched.json.error?.message).toContain(`belongs to job ${id}, not job ${id + 1}`);

    const noCredential = await post("heartbeat", beat("c1-1", { jobs: [exited] }));
    expect(noCredential.status).toBe(401);
    const badCredential = await post("heartbeat", beat("c1-1", { jobs: [exited] }), "tnc_forged");
    expect(badCredential.status).toBe(401);
    const malformed = await post("heartbeat", { ...beat("c1-1"), busyPercent: 140, gpus: "eight" }, cred["c1-1"]);
    expect(malformed.status).toBe(400);
    expect(malformed.json.error?.message).toMatch(/busyPercent/);
    expect(malformed.json.error?.message).toMatch(/gpus/);
    const notJson = await post("heartbeat", "{not json", cred["c1-1"]);
    expect(notJson.status).toBe(400);

    expect(await dump()).toBe(before);

    // The rightful agent's exit report is recorded.
    const ok = await post("heartbeat", beat("c1-1", { jobs: [exited] }), cred["c1-1"]);
    expect(ok.status).toBe(200);
    expect(ok.json.acknowledged).toEqual([String(seg.id)]);
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("COMPLETED");
  });

  it("a process the control plane does not know is told to stop", async () => {
    const r = await post(
      "heartbeat",
      beat("c1-1", {
        jobs: [
          {
            jobId: 999,
            segmentId: "999999",
            status: "RUNNING",
            pid: 42,
            launchedAt: null,
            exitCode: null,
            signal: null,
            endedAt: null,
          },
        ],
      }),
      cred["c1-1"],
    );
    expect(r.status).toBe(200);
    expect(r.json.stop).toEqual([expect.objectContaining({ jobId: 999, segmentId: "999999", reason: "UNKNOWN" })]);
  });

  it("an unhealthy report is recorded so the next cycle drains the node", async () => {
    const r = await post(
      "heartbeat",
      beat("c1-1", { health: { healthy: false, errors: ["nvidia-smi failed: GPU is lost"] } }),
      cred["c1-1"],
    );
    expect(r.status).toBe(200);
    const n = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-1" } });
    expect(n.health).toBe("UNHEALTHY");
    expect(n.healthDetails).toEqual({ errors: ["nvidia-smi failed: GPU is lost"], driverVersion: null });

    // The drain says what the agent reported, in the node's reason and its history: "reported itself
    // unhealthy" alone sent the operator to the host to find out, and the words were gone once it recovered.
    expect(await acquireOrRenewLease(db.prisma, "test", 30)).toBe(true);
    const input = await loadCycleInput(db.prisma, world.clusterId, Math.floor(Date.now() / 1000));
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, input.now), "test", {
      loadMs: 0,
      decideMs: 0,
    });
    const drained = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-1" } });
    const said = "Node c1-1 reported itself unhealthy (nvidia-smi failed: GPU is lost) and is draining";
    expect(drained.state).toBe("DRAINING");
    expect(drained.stateReason).toContain(said);
    const event = await db.prisma.nodeEvent.findFirstOrThrow({ where: { nodeId: drained.id }, orderBy: { id: "desc" } });
    expect(event.reason).toContain(said);

    // Healthy again before its jobs have left: it stays draining (R8), and its reason no longer reads as
    // if it were still unhealthy, while its history keeps what the agent said.
    const stateChangedAt = drained.stateChangedAt.getTime();
    expect((await post("heartbeat", beat("c1-1"), cred["c1-1"])).status).toBe(200);
    const [view] = await listNodes(db.prisma, undefined, "c1-1");
    expect(view!.state).toBe("DRAINING");
    expect(view!.stateReason).toContain(said);
    const healthyAt = Date.parse(view!.healthyAgainAt!);
    expect(healthyAt).toBeGreaterThanOrEqual(stateChangedAt);
    // Seen 8 minutes after it turned healthy, the drain having come a minute before that.
    const seen = { ...view!, stateChangedAt: new Date(healthyAt - 60_000).toISOString() };
    expect(nodeReasonWords(seen, healthyAt + 8 * 60_000)).toBe(
      "Reported itself unhealthy 9 min ago; healthy again for the last 8 min; returns to service once its jobs have left.",
    );
    const [queued] = (await getRepairQueue(db.prisma)).filter((r) => r.name === "c1-1");
    expect(queued!.healthyAgainAt).toBe(view!.healthyAgainAt);
  });
});
