import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { enterCalls } from "../src/request-gate";
import { handleRest } from "../src/rest";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
let ada: string;
let other: string;
let jobId: number;

beforeAll(async () => {
  w = await makeWorld("api_rest_logs");
  ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  other = (await createApiToken(w.db.prisma, w.users.other, { name: "test" })).token;
  jobId = (await w.caller("ada").job.submit(goodJob)).id;
  // 25 chunks of output as agents store them: stdout lines, every fifth on stderr.
  await w.db.prisma.jobLogChunk.createMany({
    data: Array.from({ length: 25 }, (_, i) => ({
      jobId,
      stream: i % 5 === 4 ? "stderr" : "stdout",
      node: "h100-01",
      text: `line ${i}\n`,
    })),
  });
  await w.db.prisma.job.update({ where: { id: jobId }, data: { logBytes: 200, logDroppedBytes: 4096n } });
});
afterAll(async () => {
  await w?.db.drop();
});

const get = (path: string, token = ada) => callRest(w, "GET", path, { token });
const texts = (b: { chunks: { text: string }[] }) => b.chunks.map((c) => c.text.trim());

describe("REST /api/v1/jobs/{id}/logs", () => {
  it("answers the end of the log by default, in the order printed, with what was dropped", async () => {
    const r = await get(`/jobs/${jobId}/logs?limit=3`);
    expect(r.status).toBe(200);
    expect(texts(r.body as never)).toEqual(["line 22", "line 23", "line 24"]);
    expect(r.body).toMatchObject({ jobId, state: "PENDING", keptBytes: 200, droppedBytes: 4096, complete: false });
    expect(r.body.older).toBe(r.body.chunks[0].cursor);
    expect(r.body.next).toBe(r.body.chunks[2].cursor);
  });

  it("pages back with before, reads from the start with after=0, and follows with next", async () => {
    const end = await get(`/jobs/${jobId}/logs?limit=3`);
    const back = await get(`/jobs/${jobId}/logs?limit=3&before=${end.body.older}`);
    expect(texts(back.body as never)).toEqual(["line 19", "line 20", "line 21"]);
    const start = await get(`/jobs/${jobId}/logs?after=0&limit=2`);
    expect(texts(start.body as never)).toEqual(["line 0", "line 1"]);
    expect(start.body.older).toBeNull();
    // Following: nothing new yet keeps the place; a new chunk arrives on the next poll.
    const idle = await get(`/jobs/${jobId}/logs?after=${end.body.next}`);
    expect(idle.body.chunks).toEqual([]);
    expect(idle.body.next).toBe(end.body.next);
    await w.db.prisma.jobLogChunk.create({ data: { jobId, stream: "stdout", node: "h100-01", text: "line 25\n" } });
    const more = await get(`/jobs/${jobId}/logs?after=${idle.body.next}`);
    expect(texts(more.body as never)).toEqual(["line 25"]);
  });

  it("reads one stream with stream=stderr", async () => {
    const r = await get(`/jobs/${jobId}/logs?stream=stderr&after=0`);
    expect(texts(r.body as never)).toEqual(["line 4", "line 9", "line 14", "line 19", "line 24"]);
    expect(r.body.chunks.every((c: { stream: string }) => c.stream === "stderr")).toBe(true);
  });

  it("downloads the whole kept log as text, saying that older output was dropped", async () => {
    const res = await handleRest(
      new Request(`http://127.0.0.1:3000/api/v1/jobs/${jobId}/logs/download?stream=stdout`, {
        headers: { authorization: `Bearer ${ada}` },
      }),
      `/jobs/${jobId}/logs/download`,
      { prisma: w.db.prisma },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="job-${jobId}-stdout.log"`);
    const text = await res.text();
    expect(text.split("\n")[0]).toMatch(/4,096 bytes of older output were dropped/);
    expect(text).toContain("line 0\nline 1\nline 2\nline 3\nline 5\n");
    expect(text).not.toContain("line 4\n");
  });

  it("bad input: a bad cursor, an unknown stream, both directions or a huge limit answer 400 naming the field; nothing changes", async () => {
    const before = await w.db.prisma.jobLogChunk.count();
    const cases: [string, string, RegExp][] = [
      ["after=abc", "after", /after must be a log cursor/],
      [`after=${"9".repeat(30)}`, "after", /after must be a log cursor/],
      ["before=-1", "before", /before must be a log cursor/],
      ["stream=both", "stream", /stream must be stdout or stderr/],
      ["after=1&before=9", "before", /after and before cannot be used together/],
      ["limit=5000", "limit", /limit must be at most 1000/],
      ["colour=red", "colour", /unknown field 'colour'/],
    ];
    for (const [query, field, message] of cases) {
      const r = await get(`/jobs/${jobId}/logs?${query}`);
      expect(r.status, query).toBe(400);
      expect(r.body.error.code).toBe("BAD_INPUT");
      expect(r.body.error.message).toMatch(message);
      expect(r.body.error.issues.map((i: { path: string }) => i.path)).toEqual([field]);
    }
    const dl = await get(`/jobs/${jobId}/logs/download?stream=all`).catch(() => null);
    expect(dl?.status).toBe(400);
    expect(await w.db.prisma.jobLogChunk.count()).toBe(before);
  });

  it("is refused to a researcher who is not the owner, and 404 for a job that does not exist", async () => {
    const r = await get(`/jobs/${jobId}/logs`, other);
    expect(r.status).toBe(403);
    expect(r.body.error.message).toMatch(/visible to its owner, the managers of its budget/);
    expect((await get(`/jobs/999999/logs`)).status).toBe(404);
  });

  it("a download reads the log a page of at most 32 chunks at a time, and holds a place among its person's calls until it ends", async () => {
    // A page of the log is what a download holds in the web process while its reader does not read:
    // pages of 1,000 chunks held 32 MB each, and a download left the bound on calls when it began to
    // stream, so 20 unread downloads of a 64 MiB log held 1.3 GB (a security audit).
    const big = (await w.caller("ada").job.submit(goodJob)).id;
    const text = "x".repeat(32 * 1024 - 1) + "\n";
    await w.db.prisma.jobLogChunk.createMany({
      data: Array.from({ length: 40 }, () => ({ jobId: big, stream: "stdout", text })),
    });
    const held = enterCalls(w.users.ada.id, LIMITS.callsInFlightPerUser - 1);
    try {
      const download = await handleRest(
        new Request(`http://127.0.0.1:3000/api/v1/jobs/${big}/logs/download`, { headers: { authorization: `Bearer ${ada}` } }),
        `/jobs/${big}/logs/download`,
        { prisma: w.db.prisma },
      );
      expect(download.status).toBe(200);
      // Streaming, unread: it keeps its place, so the person's next call is past the bound.
      expect((await get(`/jobs/${big}/logs?limit=1`)).status).toBe(429);
      const reader = download.body!.getReader();
      expect((await reader.read()).value!.byteLength).toBe(32 * text.length);
      expect((await reader.read()).value!.byteLength).toBe(8 * text.length);
      expect((await reader.read()).done).toBe(true);
      // Read to its end, it has left its place.
      expect((await get(`/jobs/${big}/logs?limit=1`)).status).toBe(200);
      // So does one its reader abandons.
      const abandoned = await handleRest(
        new Request(`http://127.0.0.1:3000/api/v1/jobs/${big}/logs/download`, { headers: { authorization: `Bearer ${ada}` } }),
        `/jobs/${big}/logs/download`,
        { prisma: w.db.prisma },
      );
      expect((await get(`/jobs/${big}/logs?limit=1`)).status).toBe(429);
      await abandoned.body!.cancel();
      expect((await get(`/jobs/${big}/logs?limit=1`)).status).toBe(200);
    } finally {
      held();
    }
  });
});
