import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
let adaToken: string;

beforeAll(async () => {
  w = await makeWorld("api_rest_batch");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);

const batch = (jobs: unknown[], token: string | null = adaToken) => call("POST", "/jobs/batch", { token, body: { jobs } });

describe("REST POST /api/v1/jobs/batch", () => {
  it("stores a good batch in order, each with its SUBMITTED event, and wakes the worker once per cluster", async () => {
    const listener = new pg.Client({ connectionString: w.db.url });
    await listener.connect();
    const woken: string[] = [];
    listener.on("notification", (n) => woken.push(n.payload ?? ""));
    await listener.query("LISTEN tranche_jobs");
    try {
      const before = await w.counts();
      const jobs = [
        { ...goodJob, name: "b-0" },
        { ...goodJob, name: "b-1", budget: "lab/language/evaluation", gpus: 1, minRuntime: 0 },
        { ...goodJob, name: "b-2", minRuntime: "5m", maxRuntime: "10m", gpus: 2 },
        { ...goodJob, name: "b-3", cluster: "b200" },
      ];
      const r = await batch(jobs);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.jobs.map((j: { name: string }) => j.name)).toEqual(["b-0", "b-1", "b-2", "b-3"]);
      expect(r.body.jobs.map((j: { lane: string }) => j.lane)).toEqual(["ALLOCATED", "UNALLOCATED", "DEBUG", "ALLOCATED"]);
      const ids = r.body.jobs.map((j: { id: number }) => j.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(await w.counts()).toEqual({ ...before, jobs: before.jobs + 4, events: before.events + 4 });
      const stored = await w.db.prisma.job.findMany({ where: { id: { in: ids } }, include: { budget: true, events: true } });
      for (const [i, job] of r.body.jobs.entries()) {
        const row = stored.find((s) => s.id === job.id)!;
        expect(row).toMatchObject({ name: jobs[i]!.name, state: "PENDING", userId: w.users.ada.id, gpus: job.gpus });
        expect(row.budget.path).toBe(job.budget);
        expect(row.events.map((e) => e.kind)).toEqual(["SUBMITTED"]);
        expect(row.events[0]!.sentence).toMatch(/^Submitted by Ada/);
      }
      // One NOTIFY per cluster touched, delivered at commit (h100 and b200).
      for (let i = 0; i < 50 && woken.length < 2; i++) await new Promise((res) => setTimeout(res, 20));
      expect(woken).toHaveLength(2);
      const got = await call("GET", `/jobs/${ids[1]}`, { token: adaToken });
      expect(got.body.job).toMatchObject({ id: ids[1], name: "b-1", budget: "lab/language/evaluation" });
    } finally {
      await listener.end();
    }
  });

  it("one bad item: 400 naming the item and field, nothing stored", async () => {
    const before = await w.counts();
    const cases: [unknown[], string, RegExp][] = [
      [[goodJob, { ...goodJob, gpus: -1 }], "jobs.1.gpus", /jobs\.1\.gpus: The number of GPUs must be at least 1/],
      [[goodJob, goodJob, { ...goodJob, minRuntime: "soon" }], "jobs.2.minRuntime", /not a duration/],
      [[goodJob, { ...goodJob, gpus: 20 }], "jobs.1.gpus", /^jobs\.1: 20 GPUs .*not a multiple of the node size/],
      [[goodJob, goodJob, goodJob, { ...goodJob, cluster: "nope" }], "jobs.3.cluster", /^jobs\.3: Unknown cluster 'nope'/],
      [[{ ...goodJob, budget: "lab/language" }], "jobs.0.budget", /^jobs\.0: 'lab\/language' is not a budget/],
      [
        [
          { ...goodJob, idempotencyKey: "same" },
          { ...goodJob, idempotencyKey: "same" },
        ],
        "jobs.1.idempotencyKey",
        /appears twice/,
      ],
    ];
    for (const [jobs, field, msg] of cases) {
      const r = await batch(jobs);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.code).toBe("BAD_INPUT");
      expect(r.body.error.message).toMatch(msg);
      expect(r.body.error.issues[0].path).toBe(field);
    }
    for (const [body, msg] of [
      [{ jobs: [] }, /at least one job/],
      [{ jobs: Array.from({ length: 1001 }, () => goodJob) }, /at most 1,000 jobs/],
      [{ jobs: "x" }, /array/],
      [[goodJob], /a batch submission must be a JSON object/],
    ] as const) {
      const r = await call("POST", "/jobs/batch", { token: adaToken, body });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.message).toMatch(msg);
    }
    const notJson = await call("POST", "/jobs/batch", { token: adaToken, raw: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await w.counts()).toEqual(before);
  });

  it("a budget the user may not charge: 403 naming the item, nothing stored", async () => {
    const before = await w.counts();
    const r = await batch([goodJob, { ...goodJob, budget: "lab/vision/video" }, goodJob]);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("FORBIDDEN");
    expect(r.body.error.message).toMatch(/^jobs\.1: You may not charge budget 'lab\/vision\/video'/);
    expect(r.body.error.issues[0].path).toBe("jobs.1.budget");
    expect(await w.counts()).toEqual(before);
    // An admin may charge any budget.
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "t" })).token;
    const ok = await batch([{ ...goodJob, budget: "lab/vision/video" }], admin);
    expect(ok.status).toBe(201);
  });

  it("unauthenticated, bad or revoked token: 401; a disabled user's token: 403; nothing stored", async () => {
    const before = await w.counts();
    expect((await batch([goodJob], null)).status).toBe(401);
    expect((await batch([goodJob], "trn_nope")).status).toBe(401);
    // Revoked by another process (straight in the database): refused at once, no cache keeps it alive.
    const { token, apiToken } = await createApiToken(w.db.prisma, w.users.ada, { name: "elsewhere" });
    expect((await call("GET", "/me", { token })).status).toBe(200);
    await w.db.prisma.apiToken.update({ where: { id: apiToken.id }, data: { revokedAt: new Date() } });
    const revoked = await batch([goodJob], token);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toMatch(/unknown, revoked or expired/);
    // A disabled user's token too, told so (403: logging in again would not help).
    const second = await createApiToken(w.db.prisma, w.users.ada, { name: "second" });
    expect((await call("GET", "/me", { token: second.token })).status).toBe(200);
    await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { disabledAt: new Date() } });
    try {
      const disabled = await batch([goodJob], second.token);
      expect(disabled.status).toBe(403);
      expect(disabled.body.error.message).toMatch(/account this API token belongs to is disabled/);
    } finally {
      await w.db.prisma.user.update({ where: { id: w.users.ada.id }, data: { disabledAt: null } });
    }
    expect(await w.counts()).toEqual({ ...before, audits: before.audits + 2 });
  });

  it("a retried batch with idempotency keys creates nothing twice", async () => {
    const jobs = [
      { ...goodJob, idempotencyKey: "retry-a" },
      { ...goodJob, idempotencyKey: "retry-b" },
    ];
    const first = await batch(jobs);
    expect(first.status).toBe(201);
    const before = await w.counts();
    const again = await batch([...jobs, { ...goodJob, idempotencyKey: "retry-c" }]);
    expect(again.status).toBe(201);
    expect(again.body.jobs.slice(0, 2).map((j: { id: number }) => j.id)).toEqual(
      first.body.jobs.map((j: { id: number }) => j.id),
    );
    expect(await w.counts()).toEqual({ ...before, jobs: before.jobs + 1, events: before.events + 1 });
  });

  it("a key used again for another request is refused with 409 naming the job and the difference, storing nothing", async () => {
    const once: Record<string, unknown> = { ...goodJob, gpus: 1, idempotencyKey: "once" };
    const first = await call("POST", "/jobs", { token: adaToken, body: once });
    expect(first.status).toBe(201);
    const before = await w.counts();
    for (const [change, said] of [
      [{ gpus: 4 }, /asked for gpus 1, not 4/],
      [{ command: "rm -rf /" }, /another command/],
      [{ minRuntime: "30m" }, /minRuntime \(s\) 7200, not 1800/],
    ] as const) {
      const r = await call("POST", "/jobs", {
        token: adaToken,
        body: { ...once, ...change },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(r.body.error.message).toMatch(new RegExp(`idempotencyKey 'once' was used for job ${first.body.job.id}`));
      expect(r.body.error.message).toMatch(said);
    }
    const inBatch = await batch([goodJob, { ...goodJob, gpus: 2, idempotencyKey: "once" }]);
    expect(inBatch.status).toBe(409);
    expect(inBatch.body.error.message).toMatch(/^jobs\.1: idempotencyKey 'once'/);
    expect(await w.counts()).toEqual(before);
    // The same request again is a retry: the same job, nothing stored.
    const retry = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, gpus: 1, idempotencyKey: "once" } });
    expect(retry.body.job.id).toBe(first.body.job.id);
    expect(await w.counts()).toEqual(before);
  });

  it("is in the OpenAPI document", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.body.paths["/jobs/batch"].post.operationId).toBe("submitJobBatch");
    const s = r.body.components.schemas.SubmitJobBatch;
    expect(s.properties.jobs.maxItems).toBe(1000);
    expect(s.properties.jobs.items.required).toEqual(expect.arrayContaining(["cluster", "budget", "gpus", "command"]));
  });
});
