import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { handleRest } from "../src/rest";
import { TEST_ORIGINS, callRest, goodJob, makeWorld, runningSession, type World } from "./fixtures";

// Bad input at the REST entry points (audit s33): a missing field is "required", job ids are digits,
// path segments that cannot be read are 400 (never 500), and a job's env may not set what the agent
// sets. Each answer names the field, and nothing is stored or changed.

let w: World;
let adaToken: string;

beforeAll(async () => {
  w = await makeWorld("api_bad_input");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) =>
  callRest(w, method, path, { token: adaToken, ...opts });

/** A request as Next hands it over: the path's segments already decoded once (%00 is a NUL by now). */
async function decodedPath(method: string, path: string) {
  const req = new Request("http://127.0.0.1:3000/api/v1/x", { method, headers: { authorization: `Bearer ${adaToken}` } });
  const res = await handleRest(req, path, { prisma: w.db.prisma, origins: TEST_ORIGINS });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe("a contract the cluster refuses on several counts", () => {
  it("names every problem at its field in one answer, REST and tRPC alike, and stores nothing", async () => {
    const before = await w.counts();
    const body = { ...goodJob, gpus: 12, minRuntime: "9h" };
    const r = await call("POST", "/jobs", { body });
    expect(r.status).toBe(400);
    expect(r.body.error.issues).toEqual([
      { path: "gpus", message: "12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)" },
      { path: "minRuntime", message: "Minimum runtime 9 h is above the cluster's limit of 8 h" },
    ]);
    // tRPC's answer carries the same list (its error formatter sends the cause's issues to the form).
    const t = (await w
      .caller("ada")
      .job.submit(body)
      .catch((e: unknown) => e)) as { cause?: { field?: string; issues?: { path: string }[] } };
    expect([t.cause?.field, t.cause?.issues?.map((i) => i.path)]).toEqual(["gpus", ["gpus", "minRuntime"]]);
    expect(await w.counts()).toEqual(before);
  });
});

describe("a missing field of a submission", () => {
  it("is required, with a duration's example, and nothing is stored", async () => {
    const before = await w.counts();
    const r = await call("POST", "/jobs", { body: { cluster: "h100", gpus: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe("budget is required; Minimum runtime is required (e.g. 2h or 0); command is required");
    expect(r.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["budget", "minRuntime", "command"]);
    const n = await call("POST", "/jobs", { body: { ...goodJob, minRuntime: null } });
    expect(n.status).toBe(400);
    expect(n.body.error.message).toBe('Minimum runtime must be whole seconds or a duration such as "2h", got null');
    expect(await w.counts()).toEqual(before);
  });
});

describe("a job id in the URL", () => {
  it("is plain digits: 1e3 and 0x10 are refused naming the id, and the job they would read as is untouched", async () => {
    const made = await call("POST", "/jobs", { body: goodJob });
    expect(made.status).toBe(201);
    const id = made.body.job.id as number;
    for (const [method, path] of [
      ["GET", "/jobs/1e3"],
      ["GET", "/jobs/0x10"],
      ["POST", `/jobs/0x${id.toString(16)}/cancel`],
      ["POST", `/jobs/${id}e0/hold`],
      ["DELETE", `/jobs/${id}.0`],
      ["GET", `/jobs/0b1/logs`],
    ]) {
      const r = await call(method!, path!);
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(r.body.error.issues[0].path).toBe("id");
      expect(r.body.error.message).toMatch(/^id: job id must be a whole number written in digits \(such as 42\), got '/);
    }
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("PENDING");
    expect((await call("GET", `/jobs/${id}`)).status).toBe(200);
    expect((await call("GET", "/jobs/2000000000")).status).toBe(404);
  });
});

describe("a path segment that cannot be read", () => {
  it("a NUL (%00, decoded by Next) is 400 naming the path, on every route, never 500", async () => {
    for (const [path, segment] of [
      ["/nodes/\u0000", "%00"],
      ["/jobs/\u0000", "%00"],
      ["/budgets/lab\u0000/members", "lab%00"],
      ["/queue/h\u0000100", "h%00100"],
    ]) {
      const r = await decodedPath("GET", path!);
      const message = `The URL path segment '${segment}' must not contain NUL characters (%00)`;
      expect(r.status, segment).toBe(400);
      expect(r.body.error).toEqual({ code: "BAD_INPUT", message, issues: [{ path: "path", message }] });
    }
  });

  it("a budget path decoded once more (lab%2Fvision) with malformed encoding or a NUL is 400, as a researcher too", async () => {
    const maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "test" })).token;
    const before = await w.counts();
    for (const [method, path] of [
      ["GET", "/budgets/%E0%A4%A/members"],
      ["PUT", "/budgets/%E0%A4%A/allocation"],
      ["GET", "/budgets/lab%2/members"],
    ]) {
      const r = await call(method!, path!, method === "PUT" ? { body: { cluster: "h100", share: 0.5 } } : {});
      expect(r.status, path).toBe(400);
      expect(r.body.error.message, path).toMatch(/^The URL path segment '.+' is not valid percent-encoding/);
    }
    // lab%2500 in the URL: Next hands over lab%00, which this decoding makes a NUL.
    const nul = await call("GET", "/budgets/lab%00/members");
    expect(nul.status).toBe(400);
    expect(nul.body.error.message).toBe("The URL path segment 'lab%00' must not contain NUL characters (%00)");
    // Still read as before: an encoded slash in a tree path.
    expect((await call("GET", "/budgets/lab%2Flanguage%2Fpretraining/members", { token: maya })).status).toBe(200);
    expect(await w.counts()).toEqual(before);
  });
});

describe("a job's env", () => {
  it("may not set what the node agent sets, nor __proto__: 400 naming the variable, nothing stored", async () => {
    const before = await w.counts();
    const r = await call("POST", "/jobs", { body: { ...goodJob, env: { SEED: "1", CUDA_VISIBLE_DEVICES: "0" } } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe(
      "env.CUDA_VISIBLE_DEVICES: CUDA_VISIBLE_DEVICES is set by the node agent for each job (the GPUs it was given); remove it",
    );
    const s = await call("POST", "/jobs", { body: { ...goodJob, secretEnv: { TRANCHE_CHECKPOINT_DIR: "/tmp/x" } } });
    expect(s.status).toBe(400);
    expect(s.body.error.issues[0].path).toBe("secretEnv.TRANCHE_CHECKPOINT_DIR");
    const raw = JSON.stringify({ ...goodJob, env: {} }).replace('"env":{}', '"env":{"__proto__":"x"}');
    const p = await call("POST", "/jobs", { raw });
    expect(p.status).toBe(400);
    expect(p.body.error.issues[0].path).toBe("env.__proto__");
    expect(await w.counts()).toEqual(before);
  });
});

describe("a list's query parameters", () => {
  it("a value a list cannot read, or a parameter it does not take, is 400 naming it, never ignored; nothing changes", async () => {
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "test" })).token;
    const omar = (await createApiToken(w.db.prisma, w.users.omar, { name: "test" })).token;
    const job = await call("POST", "/jobs", { body: { ...goodJob, name: "listed" } });
    expect(job.status).toBe(201);
    const before = await w.counts();
    for (const [path, token, says] of [
      // A list without a limit: the limit was ignored and every user listed.
      ["/users?limit=abc", admin, "limit: unknown field 'limit' in the user list's query (fields: none)"],
      ["/users?limit=10", admin, "limit: unknown field 'limit' in the user list's query (fields: none)"],
      // true/1 and false/0; anything else read as false.
      ["/jobs?active=abc", adaToken, "active must be true or false"],
      ["/notifications?unread=maybe", adaToken, "unread must be true or false"],
      // Parameters of no list: a typo read as "everything".
      ["/notifications?unred=true", adaToken, "unred: unknown field 'unred' in a notification query (fields: unread, limit)"],
      ["/queue/h100?limt=5", adaToken, "limt: unknown field 'limt' in the queue's query (fields: limit, budget)"],
      ["/queue/h100?cluster=b200", adaToken, "cluster: unknown field 'cluster' in the queue's query (fields: limit, budget)"],
      ["/clusters?gpuType=H100", adaToken, "gpuType: unknown field 'gpuType' in the cluster list's query (fields: none)"],
      ["/budgets?cluster=h100", adaToken, "cluster: unknown field 'cluster' in the budget tree's query (fields: none)"],
      ["/tokens?limit=1", adaToken, "limit: unknown field 'limit' in the token list's query (fields: none)"],
      ["/oidc-rules?limit=1", admin, "limit: unknown field 'limit' in the OIDC rule list's query (fields: none)"],
      ["/clusters/h100/enrollment-tokens?limit=1", omar, "limit: unknown field 'limit' in the enrollment token list's query"],
      ["/budgets/lab/language/members?limit=1", admin, "limit: unknown field 'limit' in the member list's query"],
      ["/budgets/lab/language/managers?limit=1", admin, "limit: unknown field 'limit' in the manager list's query"],
      [`/jobs/${job.body.job.id}/events?limit=1`, adaToken, "limit: unknown field 'limit' in the job timeline's query"],
      [`/jobs/${job.body.job.id}/logs/download?limit=1`, adaToken, "limit: unknown field 'limit' in a log download's query"],
    ] as const) {
      const r = await call("GET", path, { token });
      expect([r.status, r.body.error?.message], path).toEqual([400, expect.stringContaining(says)]);
    }
    // The values they take still read as before.
    const active = await call("GET", "/jobs?active=1&limit=5");
    expect([active.status, active.body.jobs.map((j: { name: string }) => j.name)]).toEqual([
      200,
      expect.arrayContaining(["listed"]),
    ]);
    expect((await call("GET", "/jobs?active=false")).status).toBe(200);
    expect((await call("GET", "/notifications?unread=true&limit=3")).status).toBe(200);
    expect((await call("GET", "/queue/h100?limit=1")).body.pending).toHaveLength(1);
    expect((await call("GET", "/queue?cluster=h100&limit=1")).body.pending).toHaveLength(1);
    expect((await call("GET", "/users", { token: admin })).status).toBe(200);
    expect(await w.counts()).toEqual(before);
  });
});

describe("a query's parameters, as any route reads them", () => {
  it("__proto__ is a parameter like any other, a parameter given twice is 400 naming it, and routes without a query refuse one", async () => {
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "test" })).token;
    const job = await call("POST", "/jobs", { body: { ...goodJob, name: "queried" } });
    expect(job.status).toBe(201);
    const jobId = job.body.job.id as number;
    const session = await runningSession(w, w.users.ada, 1);
    const node = (await w.db.prisma.node.findFirstOrThrow({ orderBy: { name: "asc" } })).name;
    const before = await w.counts();
    for (const [path, says, token = adaToken] of [
      // __proto__ was left out of the strict check.
      ["/jobs?__proto__=1", "__proto__: unknown field '__proto__' in"],
      ["/budgets?__proto__=1", "__proto__: unknown field '__proto__' in the budget tree's query (fields: none)"],
      ["/queue/h100?__proto__=x", "__proto__: unknown field '__proto__' in the queue's query (fields: limit, budget)"],
      [`/jobs/${jobId}/logs?__proto__=1`, "__proto__: unknown field '__proto__' in"],
      ["/users?__proto__=1", "__proto__: unknown field '__proto__' in the user list's query (fields: none)", admin],
      // The last of a repeated parameter was kept: the queue of b200 answered for ?cluster=h100&cluster=b200.
      ["/jobs?limit=&limit=5", "limit is given twice"],
      ["/jobs?active=true&limit=1&active=false", "active is given twice"],
      ["/queue?cluster=h100&cluster=b200", "cluster is given twice"],
      ["/queue/h100?limit=1&limit=1", "limit is given twice"],
      [`/jobs/${jobId}/logs?stream=stdout&stream=stderr`, "stream is given twice"],
      // Routes that take no query ignored any.
      ["/me?x=1", "x: unknown field 'x' in the signed-in user's query (fields: none)"],
      ["/me/webhook?x=1", "x: unknown field 'x' in the webhook's query (fields: none)"],
      [`/jobs/${jobId}?x=1`, "x: unknown field 'x' in a job's query (fields: none)"],
      [`/nodes/${node}?x=1`, "x: unknown field 'x' in a node's query (fields: none)"],
      ["/openapi.json?x=1", "x: unknown field 'x' in the OpenAPI document's query (fields: none)"],
      [`/sessions/${session.id}/open?state=abc&x=1`, "x: unknown field 'x' in a session link's query (fields: state)"],
      [`/sessions/${session.id}/open?state=a&state=b`, "state is given twice"],
    ] as const) {
      const r = await call("GET", path, { token });
      expect([r.status, r.body.error?.message], path).toEqual([400, expect.stringContaining(says)]);
    }
    const twice = await call("GET", "/jobs?limit=1&limit=2");
    expect(twice.body.error.issues).toEqual([{ path: "limit", message: "limit is given twice; give it once" }]);
    // Without a query they answer as before.
    for (const path of ["/me", "/me/webhook", `/jobs/${jobId}`, `/nodes/${node}`, "/openapi.json", "/queue?cluster=h100&limit=1"])
      expect((await call("GET", path)).status, path).toBe(200);
    expect(await w.counts()).toEqual(before);
  });
});
