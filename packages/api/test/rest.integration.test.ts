import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
let adaToken: string;
let omarToken: string;

beforeAll(async () => {
  w = await makeWorld("api_rest");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  omarToken = (await createApiToken(w.db.prisma, w.users.omar, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);

describe("REST /api/v1", () => {
  it("answers 401 with a JSON error without a token or with a bad one", async () => {
    const none = await call("GET", "/jobs");
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("UNAUTHORIZED");
    expect(none.body.error.message).toMatch(/Bearer/);
    const bad = await call("GET", "/jobs", { token: "trn_nope" });
    expect(bad.status).toBe(401);
    expect(bad.body.error.message).toMatch(/unknown, revoked or expired/);
  });

  it("submits a job with the workload generator's shape (seconds) and returns 201 {job}", async () => {
    const r = await call("POST", "/jobs", {
      token: adaToken,
      body: {
        cluster: "h100",
        budget: "lab/language/pretraining",
        gpus: 16,
        minRuntime: 3600,
        maxRuntime: 7200,
        resumable: false,
        priority: 3,
        requeue: true,
        gracePeriod: 60,
        command: "sleep 100",
        env: { A: "b" },
        name: "gen-1",
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.job).toMatchObject({
      name: "gen-1",
      gpus: 16,
      minRuntime: 3600,
      maxRuntime: 7200,
      resumable: false,
      requeue: true,
      priority: 3,
      gracePeriod: 60,
      state: "PENDING",
      env: { A: "b" },
    });
    const got = await call("GET", `/jobs/${r.body.job.id}`, { token: adaToken });
    expect(got.status).toBe(200);
    expect(got.body.job.id).toBe(r.body.job.id);
    const list = await call("GET", "/jobs?active=true&limit=10", { token: adaToken });
    expect(list.body.jobs.map((j: { id: number }) => j.id)).toContain(r.body.job.id);
    // A cluster that does not exist (a typo) is a 404 naming it, not an empty list.
    const typo = await call("GET", "/jobs?cluster=h10", { token: adaToken });
    expect([typo.status, typo.body.error?.message]).toEqual([404, "There is no cluster 'h10'"]);
    const events = await call("GET", `/jobs/${r.body.job.id}/events`, { token: adaToken });
    expect(events.body.events[0].kind).toBe("SUBMITTED");
  });

  it("accepts duration strings too", async () => {
    const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, minRuntime: "1h30m", maxRuntime: "4h" } });
    expect(r.status).toBe(201);
    expect(r.body.job).toMatchObject({ minRuntime: 5400, maxRuntime: 14400, lane: "ALLOCATED" });
    const debug = await call("POST", "/jobs", {
      token: adaToken,
      body: { ...goodJob, minRuntime: "5m", maxRuntime: "10m", gpus: 2 },
    });
    expect(debug.body.job).toMatchObject({ minRuntime: 300, maxRuntime: 600, lane: "DEBUG" });
    const shorter = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, minRuntime: "2h", maxRuntime: "10m" } });
    expect(shorter.status).toBe(400);
    expect(shorter.body.error.message).toMatch(/Maximum runtime 10 min is shorter than the minimum runtime, 2 h/);
  });

  it("names a job without a name after its program: no path, no shell punctuation", async () => {
    const { name: _, ...unnamed } = goodJob;
    for (const [command, name] of [
      ["./train.sh --lr 3e-4", "train.sh"],
      ["python3; nvidia-smi", "python3"],
      ["SEED=2 /opt/lab/bin/sweep.py --all", "sweep.py"],
      [";;", "job"],
    ] as const) {
      const r = await call("POST", "/jobs", { token: adaToken, body: { ...unnamed, command } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.job.name, command).toBe(name);
    }
  });

  it("rejects bad input with 400, the field named, and stores nothing", async () => {
    const before = await w.counts();
    const cases: [unknown, string, RegExp][] = [
      [{ ...goodJob, gpus: -1 }, "gpus", /The number of GPUs must be at least 1/],
      [{ ...goodJob, gpus: 3.5 }, "gpus", /whole number/],
      [{ ...goodJob, minRuntime: "soon" }, "minRuntime", /not a duration/],
      [{ ...goodJob, gpus: 20 }, "gpus", /not a multiple of the node size/],
      [{ ...goodJob, cluster: "nope" }, "cluster", /Unknown cluster/],
      [{ ...goodJob, env: { "1BAD": "x" } }, "env.1BAD", /environment variable names/],
    ];
    for (const [body, field, msg] of cases) {
      const r = await call("POST", "/jobs", { token: adaToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("BAD_INPUT");
      expect(r.body.error.message).toMatch(msg);
      expect(r.body.error.issues[0].path).toBe(field);
    }
    const notJson = await call("POST", "/jobs", { token: adaToken, raw: "{nope" });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.message).toMatch(/not valid JSON/);
    expect(await w.counts()).toEqual(before);
  });

  it("answers 403 for a budget one may not charge and for others' jobs", async () => {
    const before = await w.counts();
    const r = await call("POST", "/jobs", { token: adaToken, body: { ...goodJob, budget: "lab/vision/video" } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("FORBIDDEN");
    expect(await w.counts()).toEqual(before);
    const mine = await call("POST", "/jobs", { token: adaToken, body: goodJob });
    const cancel = await call("POST", `/jobs/${mine.body.job.id}/cancel`, { token: omarToken });
    expect(cancel.status).toBe(403);
    const all = await call("GET", "/jobs?scope=all", { token: adaToken });
    expect(all.status).toBe(403);
  });

  it("cancels: pending -> CANCELLED, then 409 on a second cancel", async () => {
    const mine = await call("POST", "/jobs", { token: adaToken, body: goodJob });
    const c1 = await call("POST", `/jobs/${mine.body.job.id}/cancel`, { token: adaToken });
    expect(c1.status).toBe(200);
    expect(c1.body.job.state).toBe("CANCELLED");
    const c2 = await call("POST", `/jobs/${mine.body.job.id}/cancel`, { token: adaToken });
    expect(c2.status).toBe(409);
    const missing = await call("GET", "/jobs/999999", { token: adaToken });
    expect(missing.status).toBe(404);
  });

  it("holds and releases: its owner, operators and admins; an operator's hold only by an operator", async () => {
    const mine = await call("POST", "/jobs", { token: adaToken, body: goodJob });
    const id = mine.body.job.id as number;
    const held = await call("POST", `/jobs/${id}/hold`, { token: adaToken });
    expect(held.status).toBe(200);
    expect(held.body.job.state).toBe("HELD");
    expect((await call("POST", `/jobs/${id}/hold`, { token: adaToken })).status).toBe(409);
    const released = await call("POST", `/jobs/${id}/release`, { token: adaToken });
    expect([released.status, released.body.job.state]).toEqual([200, "PENDING"]);
    expect((await call("POST", `/jobs/${id}/release`, { token: adaToken })).status).toBe(409);
    // An operator holds it (a job that breaks nodes, say): its owner may not lift that.
    expect((await call("POST", `/jobs/${id}/hold`, { token: omarToken })).body.job.state).toBe("HELD");
    const before = await w.counts();
    const refused = await call("POST", `/jobs/${id}/release`, { token: adaToken });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("held by someone else (an operator, an admin or a manager of its budget)");
    expect(await w.counts()).toEqual(before);
    expect((await call("POST", `/jobs/${id}/release`, { token: omarToken })).body.job.state).toBe("PENDING");
    expect((await call("POST", "/jobs/999999/hold", { token: adaToken })).status).toBe(404);
  });

  it("lists and revokes one's API tokens, and creates none: a stolen token cannot mint another", async () => {
    const spare = await createApiToken(w.db.prisma, w.users.ada, { name: "spare" });
    const list = await call("GET", "/tokens", { token: adaToken });
    expect(list.status).toBe(200);
    expect(list.body.tokens.map((t: { name: string }) => t.name)).toContain("spare");
    expect(JSON.stringify(list.body)).not.toContain(spare.token);
    const made = await call("POST", "/tokens", { token: adaToken, body: { name: "more" } });
    expect(made.status).toBe(404);
    expect((await call("POST", `/tokens/${spare.apiToken.id}/revoke`, { token: omarToken })).status).toBe(403);
    expect((await call("POST", "/tokens/nope/revoke", { token: adaToken })).status).toBe(404);
    const revoked = await call("POST", `/tokens/${spare.apiToken.id}/revoke`, { token: adaToken });
    expect(revoked.status).toBe(200);
    expect(revoked.body.token.revokedAt).not.toBeNull();
    expect((await call("GET", "/me", { token: spare.token })).status).toBe(401);
  });

  it("lists allocation changes newest first, of a cluster and a subtree, and refuses what does not exist", async () => {
    const r = await call("GET", "/allocation-changes?cluster=h100&path=lab/language&limit=500", { token: adaToken });
    expect(r.status).toBe(200);
    const paths = r.body.changes.map((c: { path: string }) => c.path) as string[];
    expect(paths).toContain("lab/language");
    expect(paths).toContain("lab/language/pretraining");
    expect(paths.every((p) => p === "lab/language" || p.startsWith("lab/language/"))).toBe(true);
    expect(r.body.changes.every((c: { cluster: string }) => c.cluster === "h100")).toBe(true);
    expect(r.body.changes[0]).toMatchObject({ fromPpm: 0, note: "initial allocation" });
    const times = r.body.changes.map((c: { at: string }) => Date.parse(c.at)) as number[];
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await call("GET", "/allocation-changes?limit=2", { token: adaToken })).body.changes).toHaveLength(2);
    for (const [q, status, says] of [
      ["cluster=a100", 404, "There is no cluster 'a100'"],
      ["path=lab/robots", 404, "There is no budget or tree node 'lab/robots'"],
      ["limit=many", 400, "limit must be a number"],
      ["limit=0", 400, "limit must be between 1 and 500"],
      ["since=yesterday", 400, "unknown field 'since'"],
    ] as const) {
      const bad = await call("GET", `/allocation-changes?${q}`, { token: adaToken });
      expect([bad.status, bad.body.error.message], q).toEqual([status, expect.stringContaining(says)]);
    }
  });

  it("serves the queue, budgets and clusters to any token", async () => {
    const q = await call("GET", "/queue/h100", { token: omarToken });
    expect(q.status).toBe(200);
    expect(q.body.cluster.name).toBe("h100");
    expect(q.body.pending.length).toBeGreaterThan(0);
    expect(q.body.pending[0]).toHaveProperty("reasonSentence");
    expect((await call("GET", "/queue/tpu", { token: omarToken })).status).toBe(404);
    const b = await call("GET", "/budgets", { token: adaToken });
    expect(b.body.root.path).toBe("lab");
    const c = await call("GET", "/clusters", { token: adaToken });
    expect(c.body.clusters.map((x: { name: string }) => x.name)).toEqual(["b200", "h100"]);
    expect((await call("GET", "/nothing", { token: adaToken })).status).toBe(404);
  });

  it("a revoked token is refused", async () => {
    const { token, apiToken } = await createApiToken(w.db.prisma, w.users.ada, { name: "short" });
    expect((await call("GET", "/me", { token })).status).toBe(200);
    await w.caller("ada").token.revoke({ id: apiToken.id });
    expect((await call("GET", "/me", { token })).status).toBe(401);
  });

  it("publishes OpenAPI 3.1 generated from the zod schemas, without auth", async () => {
    const r = await call("GET", "/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    const submit = r.body.components.schemas.SubmitJob;
    expect(submit.required).toEqual(expect.arrayContaining(["cluster", "budget", "gpus", "minRuntime", "command"]));
    expect(submit.properties.gpus.type).toBe("integer");
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining(["/jobs", "/jobs/{id}", "/jobs/{id}/cancel", "/queue/{cluster}", "/budgets"]),
    );
  });
});
