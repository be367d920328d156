import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { handleRest } from "../src/rest";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// Issue 15, "bounded everything" and the smaller holes: every oversized, unknown, NUL-carrying or
// out-of-range input is refused with 400/413 naming the field or the limit, and nothing is stored.

let w: World;
let adaToken: string;

beforeAll(async () => {
  w = await makeWorld("api_limits");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);
const MB = 1000 * 1000;

describe("REST size limits", () => {
  it("a job with a 5 MB env value is refused with 413 naming the limit, and no row is written", async () => {
    const before = await w.counts();
    const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, env: { BIG: "x".repeat(5 * MB) } } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("TOO_LARGE");
    expect(r.body.error.message).toMatch(/larger than 1 MiB/);
    expect(await w.counts()).toEqual(before);
  });

  it("env: a value, the count and the total are bounded, each refused with 400 naming it", async () => {
    const before = await w.counts();
    const many = Object.fromEntries(Array.from({ length: LIMITS.envVars + 1 }, (_, i) => [`V${i}`, "1"]));
    const wide = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`W${i}`, "y".repeat(30 * 1024)]));
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ BIG: "x".repeat(40 * 1024) }, "env.BIG", /BIG is 40 KiB; a value holds at most 32 KiB/],
      [many, "env", /env holds 257 variables; at most 256/],
      [wide, "env", /a job's environment holds at most 64 KiB/],
    ];
    for (const [env, path, msg] of cases) {
      const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, env } });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
      expect(r.body.error.issues[0].path).toBe(path);
      expect(r.body.error.message).toMatch(msg);
    }
    expect(await w.counts()).toEqual(before);
  });

  it("a batch over its byte limit is refused with 413, and the body is not read past the limit", async () => {
    const before = await w.counts();
    const item = { ...goodJob, env: { PAD: "p".repeat(20 * 1024) } };
    const big = await call("POST", "/jobs/batch", { token: adaToken, body: { jobs: Array.from({ length: 500 }, () => item) } });
    expect(big.status).toBe(413);
    expect(big.body.error.message).toMatch(/larger than 8 MiB/);

    // An endless body: answered once it passes the limit (reading it whole would never end).
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const req = new Request("http://127.0.0.1:3000/api/v1/jobs", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${adaToken}` },
      body: endless,
      duplex: "half",
    } as RequestInit);
    const res = await handleRest(req, "/jobs", { prisma: w.db.prisma });
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(LIMITS.requestBytes + 256 * 1024);
    expect(await w.counts()).toEqual(before);
  });

  it("command, name, cluster and budget lengths are bounded", async () => {
    const before = await w.counts();
    for (const [patch, path] of [
      [{ command: "x".repeat(LIMITS.commandChars + 1) }, "command"],
      [{ name: "n".repeat(LIMITS.nameChars + 1) }, "name"],
      [{ cluster: "c".repeat(LIMITS.keyChars + 1) }, "cluster"],
      [{ budget: "b".repeat(LIMITS.keyChars + 1) }, "budget"],
      [{ idempotencyKey: "k".repeat(LIMITS.keyChars + 1) }, "idempotencyKey"],
    ] as const) {
      const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, ...patch } });
      expect(r.status).toBe(400);
      expect(r.body.error.issues[0].path).toBe(path);
      expect(r.body.error.message).toMatch(new RegExp(`${path} is longer than [0-9,]+ characters`));
    }
    expect(await w.counts()).toEqual(before);
  });
});

describe("REST strict inputs", () => {
  it("an unknown field is refused with 400 naming it, in a job and in a batch item", async () => {
    const before = await w.counts();
    const one = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, maxRuntim: "1h" } });
    expect(one.status).toBe(400);
    expect(one.body.error.issues).toEqual([
      { path: "maxRuntim", message: expect.stringMatching(/^unknown field 'maxRuntim' in a job submission \(fields: cluster, /) },
    ]);
    const batch = await call("POST", "/jobs/batch", {
      token: adaToken,
      body: { jobs: [goodJob, goodJob, { ...goodJob, gpu: 8 }], dryRun: true },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["dryRun", "jobs.2.gpu"]);
    const query = await call("GET", "/jobs?limit=5&sort=asc", { token: adaToken });
    expect(query.status).toBe(400);
    expect(query.body.error.issues[0].path).toBe("sort");
    expect(await w.counts()).toEqual(before);
  });

  it("a NUL character in any string is refused with 400 naming the field, never a 500", async () => {
    const before = await w.counts();
    for (const [patch, path] of [
      [{ command: "echo a\u0000b" }, "command"],
      [{ name: "n\u0000" }, "name"],
      [{ env: { A: "x\u0000y" } }, "env.A"],
      [{ budget: "lab/\u0000" }, "budget"],
      [{ cluster: "h100\u0000" }, "cluster"],
      [{ idempotencyKey: "k\u0000" }, "idempotencyKey"],
    ] as const) {
      const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, ...patch } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.issues[0].path).toBe(path);
      expect(r.body.error.message).toMatch(/must not contain NUL characters/);
    }
    const listed = await call("GET", "/jobs?cluster=h%00", { token: adaToken });
    expect(listed.status).toBe(400);
    // The web app hands the handler the decoded path (Next decodes %00 in route params): every route's
    // segments are checked before the route reads them.
    const queue = await call("GET", "/queue/h100\u0000", { token: adaToken });
    expect(queue.status).toBe(400);
    expect(queue.body.error.issues[0].path).toBe("path");
    expect(queue.body.error.message).toBe("The URL path segment 'h100%00' must not contain NUL characters (%00)");
    expect(await w.counts()).toEqual(before);
  });

  it("a queue read is bounded: LIMITS.queueRows pending rows by default, at most LIMITS.queueRowsMax, a bad limit 400", async () => {
    const jobs = Array.from({ length: LIMITS.queueRows + 1 }, (_, i) => ({ ...goodJob, name: `q${i}` }));
    expect((await call("POST", "/jobs/batch", { token: adaToken, body: { jobs } })).status).toBe(201);
    const cluster = goodJob.cluster;
    const byDefault = await call("GET", `/queue/${cluster}`, { token: adaToken });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.pending).toHaveLength(LIMITS.queueRows);
    const asked = await call("GET", `/queue/${cluster}?limit=${LIMITS.queueRows + 1}`, { token: adaToken });
    expect(asked.body.pending).toHaveLength(LIMITS.queueRows + 1);
    for (const [limit, msg] of [
      [`${LIMITS.queueRowsMax + 1}`, /limit must be at most 10,000 pending rows, got 10001/],
      ["100000", /at most 10,000/],
      ["-1", /limit must be a whole number of pending rows \(0 to 10,000\), got '-1'/],
      ["abc", /got 'abc'/],
      ["1.5", /whole number/],
    ] as const) {
      const r = await call("GET", `/queue/${cluster}?limit=${limit}`, { token: adaToken });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
      expect(r.body.error.issues[0].path).toBe("limit");
      expect(r.body.error.message).toMatch(msg);
    }
    await expect(w.caller("ada").queue.get({ cluster, limit: LIMITS.queueRowsMax + 1 })).rejects.toThrow();
    expect((await w.caller("ada").queue.get({ cluster })).pending).toHaveLength(LIMITS.queueRows);
  });

  it("out-of-range integers are refused with 400 naming the field, never a 500", async () => {
    const before = await w.counts();
    for (const [patch, path, msg] of [
      [{ gpus: 2 ** 40 }, "gpus", /The number of GPUs must be at most 100,000/],
      [{ maxRuntime: "100000d" }, "maxRuntime", /Maximum runtime must be at most 365 days/],
      [{ minRuntime: 2 ** 40 }, "minRuntime", /Minimum runtime must be at most 365 days/],
      [{ gracePeriod: 2 ** 31 }, "gracePeriod", /Grace period must be at most 365 days/],
      [{ priority: 2 ** 40 }, "priority", /Priority must be between -1000 and 1000/],
    ] as const) {
      const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, ...patch } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.issues[0].path).toBe(path);
      expect(r.body.error.message).toMatch(msg);
    }
    for (const path of [`/jobs/${2 ** 40}`, `/jobs/${2 ** 31}/events`, `/jobs/${2 ** 40}/cancel`]) {
      const r = await call(path.endsWith("cancel") ? "POST" : "GET", path, { token: adaToken });
      expect(r.status, path).toBe(400);
      expect(r.body.error.message).toMatch(/job id must be at most 2,147,483,647/);
    }
    expect(await w.counts()).toEqual(before);
  });
});

describe("idempotency keys", () => {
  it("are per user: the same key from two users makes two jobs, and neither sees or blocks the other's", async () => {
    // "other" is a researcher of lab/vision/video, not of Ada's budgets.
    const otherToken = (await createApiToken(w.db.prisma, w.users.other, { name: "test" })).token;
    const otherJob = { ...goodJob, budget: "lab/vision/video", idempotencyKey: "nightly-1" };
    const ada = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, idempotencyKey: "nightly-1" } });
    expect(ada.status).toBe(201);
    const other = await call("POST", "/jobs", { token: otherToken, body: otherJob });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(other.body.job.id).not.toBe(ada.body.job.id);
    expect(other.body.job.user.id).toBe(w.users.other.id);
    // Retries find each user's own job.
    const adaAgain = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, idempotencyKey: "nightly-1" } });
    expect(adaAgain.body.job.id).toBe(ada.body.job.id);
    const otherAgain = await call("POST", "/jobs/batch", { token: otherToken, body: { jobs: [otherJob] } });
    expect(otherAgain.status).toBe(201);
    expect(otherAgain.body.jobs[0].id).toBe(other.body.job.id);
    expect(await w.db.prisma.job.count({ where: { idempotencyKey: "nightly-1" } })).toBe(2);
  });
});
