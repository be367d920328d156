import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { applyCyclePlan, acquireOrRenewLease, issueEnrollmentTokens, loadCycleInput } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { LIMITS, type HeartbeatRequestInput } from "@tranche/contracts";
import { fakeGpus, makeWorld, startGateway, submit, type World } from "./harness";

// Issue 15's smaller holes in the agent protocol: enrollment cannot take over an existing node,
// the agent's clock cannot end a run before it started or in the future, and requests and logs are
// bounded.

describe("agent protocol limits", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let credential: string;

  const post = async (route: string, body: unknown, cred?: string) => {
    const res = await fetch(`${gateway.url}/api/agent/v1/${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(cred ? { authorization: `Bearer ${cred}` } : {}) },
      body: typeof body === "string" || body instanceof Buffer ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      json: (await res.json()) as { error?: { code: string; message: string } } & Record<string, unknown>,
    };
  };
  const beat = (extra: Partial<HeartbeatRequestInput> = {}): HeartbeatRequestInput => ({
    nodeName: "c1-0",
    agentVersion: "test",
    health: { healthy: true, errors: [] },
    gpus: fakeGpus(),
    busyPercent: 50,
    jobs: [],
    logs: [],
    ...extra,
  });
  const enroll = (token: string, nodeName: string) => post("enroll", { token, nodeName, agentVersion: "test", gpus: fakeGpus() });

  /** An 8-GPU job placed on c1-0 by a real cycle: its id and open segment. */
  async function placeJob(): Promise<{ id: number; segmentId: string; startedAt: Date }> {
    const id = await submit(db.prisma, world, { gpus: 8, command: "sleep 100" });
    expect(await acquireOrRenewLease(db.prisma, "test", 30)).toBe(true);
    const input = await loadCycleInput(db.prisma, world.clusterId, Math.floor(Date.now() / 1000));
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, input.now), "test", { loadMs: 0, decideMs: 0 });
    const seg = await db.prisma.runSegment.findFirstOrThrow({ where: { jobId: id, endedAt: null } });
    return { id, segmentId: String(seg.id), startedAt: seg.startedAt };
  }
  const exited = (job: { id: number; segmentId: string }, endedAt: Date) => ({
    jobId: job.id,
    segmentId: job.segmentId,
    status: "EXITED" as const,
    pid: 1,
    launchedAt: null,
    exitCode: 0,
    signal: null,
    endedAt: endedAt.toISOString(),
  });

  beforeAll(async () => {
    db = await createTestDatabase("agentlimits");
    world = await makeWorld(db.prisma, { nodes: 1 });
    gateway = await startGateway(db.prisma);
    const [t] = await issueEnrollmentTokens(db.prisma, world.clusterId, ["c1-0"]);
    const r = await enroll(t!.token, "c1-0");
    expect(r.status).toBe(200);
    credential = r.json.credential as string;
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
  });

  it("a token not issued for a node cannot re-enroll it: 409, its credential kept, the token still unused", async () => {
    const before = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    const [unbound] = await issueEnrollmentTokens(db.prisma, world.clusterId, [null]);
    const r = await enroll(unbound!.token, "c1-0");
    expect(r.status).toBe(409);
    expect(r.json.error?.code).toBe("NODE_ALREADY_ENROLLED");
    expect(r.json.error?.message).toMatch(/Node c1-0 is already enrolled .* ask an operator for a token issued for node c1-0/);
    const after = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(after.agentCredentialHash).toBe(before.agentCredentialHash);
    expect((await post("heartbeat", beat(), credential)).status).toBe(200);
    // The refused token was not spent: it still enrolls a new host.
    const fresh = await enroll(unbound!.token, "c1-new");
    expect(fresh.status).toBe(200);
    expect((await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-new" } })).state).toBe("DOWN");
    await db.prisma.node.update({ where: { name: "c1-new" }, data: { state: "CORDONED" } });

    // A token issued for c1-0 may replace its credential (the operator's rotation).
    const [bound] = await issueEnrollmentTokens(db.prisma, world.clusterId, ["c1-0"]);
    const rotated = await enroll(bound!.token, "c1-0");
    expect(rotated.status).toBe(200);
    expect((await post("heartbeat", beat(), credential)).status).toBe(401);
    credential = rotated.json.credential as string;
    expect((await post("heartbeat", beat(), credential)).status).toBe(200);
  });

  it("an exit reported before the run started ends it at its start, never before", async () => {
    const job = await placeJob();
    const r = await post("heartbeat", beat({ jobs: [exited(job, new Date(job.startedAt.getTime() - 3600_000))] }), credential);
    expect(r.status).toBe(200);
    const seg = await db.prisma.runSegment.findUniqueOrThrow({ where: { id: BigInt(job.segmentId) } });
    expect(seg.endedAt!.getTime()).toBe(seg.startedAt.getTime());
    const j = await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(j.finishedAt!.getTime()).toBe(seg.startedAt.getTime());
  });

  it("an exit reported in the future ends the run now", async () => {
    const job = await placeJob();
    const sent = Date.now();
    const r = await post("heartbeat", beat({ jobs: [exited(job, new Date(sent + 86_400_000))] }), credential);
    expect(r.status).toBe(200);
    const seg = await db.prisma.runSegment.findUniqueOrThrow({ where: { id: BigInt(job.segmentId) } });
    expect(seg.endedAt!.getTime()).toBeGreaterThanOrEqual(seg.startedAt.getTime());
    expect(seg.endedAt!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("a request over the agent limit is refused with 413 and records nothing", async () => {
    const before = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    const huge = JSON.stringify({ ...beat(), padding: "x".repeat(LIMITS.agentRequestBytes) });
    const r = await post("heartbeat", huge, credential);
    expect(r.status).toBe(413);
    expect(r.json.error?.code).toBe("TOO_LARGE");
    expect(r.json.error?.message).toMatch(/larger than 8 MiB/);
    const after = await db.prisma.node.findUniqueOrThrow({ where: { name: "c1-0" } });
    expect(after.lastHeartbeatAt).toEqual(before.lastHeartbeatAt);
  });

  it("an enrollment, which needs no credential, is refused with 413 past 64 KiB and enrolls nothing", async () => {
    const nodes = await db.prisma.node.count();
    const huge = JSON.stringify({
      token: "tet_" + "x".repeat(40),
      nodeName: "big-0",
      agentVersion: "t",
      gpus: fakeGpus(),
      pad: "x".repeat(LIMITS.agentEnrollBytes),
    });
    const r = await post("enroll", huge);
    expect(r.status).toBe(413);
    expect(r.json.error?.message).toMatch(/larger than 64 KiB, the most an enrollment request may be/);
    expect(await db.prisma.node.count()).toBe(nodes);
  });

  it("logs: bounded per heartbeat (400 naming the limit), the newest kept per job within the retention, NUL bytes kept as U+FFFD", async () => {
    const job = await placeJob();
    const chunk = (text: string) => ({ jobId: job.id, segmentId: job.segmentId, stream: "stdout" as const, text });
    const before = await db.prisma.jobLogChunk.count();

    const tooMany = await post(
      "heartbeat",
      beat({ logs: Array.from({ length: 80 }, () => chunk("l".repeat(60_000))) }),
      credential,
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error?.message).toMatch(/logs: logs hold .* in this heartbeat; at most 4 MiB per heartbeat/);
    expect(await db.prisma.jobLogChunk.count()).toBe(before);

    const nul = await post("heartbeat", beat({ logs: [chunk("a\u0000b\n")] }), credential);
    expect(nul.status).toBe(200);
    const stored = await db.prisma.jobLogChunk.findFirstOrThrow({ where: { jobId: job.id }, orderBy: { id: "desc" } });
    expect(stored.text).toBe("a\uFFFDb\n");

    // Retention (TRANCHE_LOG_RETENTION_BYTES, read at each heartbeat): the newest output is kept, the
    // oldest dropped and counted, so the end of a long job's log is always there to follow.
    process.env.TRANCHE_LOG_RETENTION_BYTES = "1MiB";
    try {
      const kept0 = await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
      let sent = kept0.logBytes;
      for (let beatNo = 0; beatNo < 3; beatNo++) {
        const logs = Array.from({ length: 10 }, (_, i) => chunk(`${beatNo}-${i} `.padEnd(60_000, "x")));
        expect((await post("heartbeat", beat({ logs }), credential)).status).toBe(200);
        sent += 10 * 60_000;
      }
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
      const rows = await db.prisma.jobLogChunk.findMany({ where: { jobId: job.id }, orderBy: { id: "asc" } });
      const stored = rows.reduce((n, r) => n + Buffer.byteLength(r.text), 0);
      expect(stored).toBe(j.logBytes);
      expect(stored).toBeLessThanOrEqual(1024 * 1024);
      expect(Number(j.logDroppedBytes)).toBe(sent - stored);
      expect(rows.at(-1)!.text.startsWith("2-9 ")).toBe(true);
      expect(rows.some((r) => r.text.startsWith("0-0 "))).toBe(false);

      process.env.TRANCHE_LOG_RETENTION_BYTES = "12 bytes";
      const bad = await post("heartbeat", beat({ logs: [chunk("more output\n")] }), credential);
      expect(bad.status).toBe(500);
    } finally {
      delete process.env.TRANCHE_LOG_RETENTION_BYTES;
    }
  });

  it("logs: a user past TRANCHE_LOG_USER_BYTES loses the stored logs of their ended jobs, oldest first; a running job keeps its own", async () => {
    const end = (job: { id: number; segmentId: string }) =>
      post("heartbeat", beat({ jobs: [exited(job, new Date())] }), credential);
    // What earlier tests left running ends, so each job below gets the node.
    for (const seg of await db.prisma.runSegment.findMany({ where: { endedAt: null } }))
      expect((await end({ id: seg.jobId, segmentId: String(seg.id) })).status).toBe(200);
    const send = async (job: { id: number; segmentId: string }, beats: number) => {
      for (let b = 0; b < beats; b++) {
        const logs = Array.from({ length: 10 }, (_, i) => ({
          jobId: job.id,
          segmentId: job.segmentId,
          stream: "stdout" as const,
          text: `${b}-${i} `.padEnd(60_000, "x"),
        }));
        expect((await post("heartbeat", beat({ logs }), credential)).status).toBe(200);
      }
    };
    process.env.TRANCHE_LOG_RETENTION_BYTES = "2MiB";
    process.env.TRANCHE_LOG_USER_BYTES = "4MiB";
    try {
      const oldest = await placeJob();
      await send(oldest, 2); // 1.2 MB, then it ends
      expect((await end(oldest)).status).toBe(200);
      const older = await placeJob();
      await send(older, 2);
      expect((await end(older)).status).toBe(200);
      const running = await placeJob();
      await send(running, 3); // 1.8 MB: the user's total passes 4 MiB on the way
      const jobs = await db.prisma.job.findMany({
        where: { userId: (await db.prisma.job.findUniqueOrThrow({ where: { id: running.id } })).userId },
      });
      const byId = new Map(jobs.map((j) => [j.id, j]));
      expect(await db.prisma.jobLogChunk.count({ where: { jobId: oldest.id } })).toBe(0);
      expect(byId.get(oldest.id)!.logBytes).toBe(0);
      expect(Number(byId.get(oldest.id)!.logDroppedBytes)).toBeGreaterThanOrEqual(1_200_000);
      expect(byId.get(running.id)!.logBytes).toBe(1_800_000);
      expect(await db.prisma.jobLogChunk.count({ where: { jobId: running.id } })).toBe(30);
      // The user's counter is the sum of their jobs' kept bytes, and within the limit.
      const usage = await db.prisma.userLogUsage.findUniqueOrThrow({ where: { userId: jobs[0]!.userId } });
      expect(Number(usage.bytes)).toBe(jobs.reduce((n, j) => n + j.logBytes, 0));
      expect(Number(usage.bytes)).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect((await end(running)).status).toBe(200);
    } finally {
      delete process.env.TRANCHE_LOG_RETENTION_BYTES;
      delete process.env.TRANCHE_LOG_USER_BYTES;
    }
  });

  it("NUL bytes and out-of-range integers in a report are a 400, never a 500", async () => {
    const nul = await post("heartbeat", beat({ agentVersion: "1.0\u0000" }), credential);
    expect(nul.status).toBe(400);
    expect(nul.json.error?.message).toMatch(/agentVersion: agentVersion must not contain NUL/);
    const big = await post(
      "heartbeat",
      beat({ jobs: [{ ...exited({ id: 1, segmentId: "1" }, new Date()), exitCode: 2 ** 40 }] }),
      credential,
    );
    expect(big.status).toBe(400);
    expect(big.json.error?.message).toMatch(/jobs\.0\.exitCode/);
  });

  it("logs: half of a character is a 400 naming the chunk, never a 500; nothing stored, and the next heartbeat's output is", async () => {
    // What earlier tests left running ends, so this job gets the node.
    for (const seg of await db.prisma.runSegment.findMany({ where: { endedAt: null } }))
      expect(
        (await post("heartbeat", beat({ jobs: [exited({ id: seg.jobId, segmentId: String(seg.id) }, new Date())] }), credential))
          .status,
      ).toBe(200);
    const job = await placeJob();
    const chunk = (text: string) => ({ jobId: job.id, segmentId: job.segmentId, stream: "stdout" as const, text });
    const before = await db.prisma.jobLogChunk.count();
    // "😀" is two UTF-16 units: a chunk cut between them carries a lone surrogate, as JSON writes it.
    const [high, low] = ["😀".charCodeAt(0), "😀".charCodeAt(1)].map((c) => String.fromCharCode(c));
    for (const cut of [`smile ${high}`, `${low} rest`]) {
      const r = await post("heartbeat", beat({ logs: [chunk("fine\n"), chunk(cut)] }), credential);
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(r.json.error?.message).toMatch(/logs\.1\.text: text must be valid Unicode text: it holds half of a character/);
    }
    expect(await db.prisma.jobLogChunk.count()).toBe(before);

    // Bytes that are not UTF-8 (a character cut in the body itself) become U+FFFD, kept like the rest.
    const [head, tail] = JSON.stringify(beat({ logs: [chunk("@")] })).split("@");
    const cutBytes = Buffer.concat([
      Buffer.from(head!),
      Buffer.from("smile "),
      Buffer.from("😀").subarray(0, 2),
      Buffer.from(tail!),
    ]);
    expect((await post("heartbeat", cutBytes, credential)).status).toBe(200);

    expect((await post("heartbeat", beat({ logs: [chunk("smile 😀 rest\n")] }), credential)).status).toBe(200);
    const rows = await db.prisma.jobLogChunk.findMany({ where: { jobId: job.id }, orderBy: { id: "asc" } });
    expect(rows.map((r) => r.text)).toEqual(["smile \uFFFD", "smile 😀 rest\n"]);
  });
});
