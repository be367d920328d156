import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// Text that is not text: half of a UTF-16 character (a lone surrogate, which JSON writes "\ud800") and,
// in a free-text note, a NUL. Postgres refuses both in jsonb (an environment, an event's or an audit
// row's details), so they are refused at the entry point, 400 naming the field, and nothing is stored.

let w: World;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  w = await makeWorld("api_malformed_text");
  tokens.ada = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  tokens.maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const HALF = "a\ud800b";
const LOW_HALF = "\udc00";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
function refusedNaming(r: { status: number; body: Record<string, any> }, field: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.error.issues).toEqual([{ path: field, message: expect.stringMatching(/must be valid Unicode text/) }]);
}

describe("a lone surrogate in a job's text", () => {
  it("REST POST /jobs refuses it in the name, the command and an env value: 400 naming the field, nothing stored", async () => {
    const before = await w.counts();
    const cases: [object, string][] = [
      [{ name: HALF }, "name"],
      [{ command: `echo ${LOW_HALF}` }, "command"],
      [{ env: { X: HALF } }, "env.X"],
    ];
    for (const [extra, field] of cases)
      refusedNaming(await callRest(w, "POST", "/jobs", { token: tokens.ada, body: { ...goodJob, ...extra } }), field);
    expect(await w.counts()).toEqual(before);
  });

  it("PATCH /jobs/{id} and tRPC job.submit refuse it the same way", async () => {
    const made = await callRest(w, "POST", "/jobs", { token: tokens.ada, body: goodJob });
    expect(made.status).toBe(201);
    const before = await w.counts();
    refusedNaming(await callRest(w, "PATCH", `/jobs/${made.body.job.id}`, { token: tokens.ada, body: { name: HALF } }), "name");
    await expect(w.caller("ada").job.submit({ ...goodJob, name: HALF })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/name must be valid Unicode text/),
    });
    expect(await w.counts()).toEqual(before);
    expect((await w.db.prisma.job.findUniqueOrThrow({ where: { id: made.body.job.id } })).name).toBe(goodJob.name);
  });
});

describe("an allocation's note", () => {
  it("PUT /budgets/{path}/allocation refuses a lone surrogate and a NUL in the note: 400 naming it, nothing changed", async () => {
    const before = await w.counts();
    const path = "/budgets/lab/language/pretraining/allocation";
    refusedNaming(
      await callRest(w, "PUT", path, { token: tokens.maya, body: { cluster: "h100", share: 0.05, note: HALF } }),
      "note",
    );
    const nul = await callRest(w, "PUT", path, { token: tokens.maya, body: { cluster: "h100", share: 0.05, note: "a\u0000b" } });
    expect(nul.status, JSON.stringify(nul.body)).toBe(400);
    expect(nul.body.error.issues).toEqual([{ path: "note", message: expect.stringMatching(/must not contain NUL/) }]);
    expect(await w.counts()).toEqual(before);
  });
});

describe("a person's name and the audit log's filters", () => {
  it("POST /users refuses a lone surrogate in the name: 400 naming it, no user and no audit row", async () => {
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "test" })).token;
    const before = await w.counts();
    const users = await w.db.prisma.user.count();
    refusedNaming(await callRest(w, "POST", "/users", { token: admin, body: { email: "new@lab.example", name: HALF } }), "name");
    expect(await w.db.prisma.user.count()).toBe(users);
    expect(await w.counts()).toEqual(before);
  });

  it("tRPC admin.audit and GET /audit refuse a lone surrogate or a filter past 200 characters, naming it", async () => {
    await expect(w.caller("maya").admin.audit({ actor: HALF })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/actor must be valid Unicode text/),
    });
    await expect(w.caller("maya").admin.audit({ target: "x".repeat(201) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/target is longer than 200 characters/),
    });
    const long = await callRest(w, "GET", `/audit?action=${"u".repeat(201)}`, { token: tokens.maya });
    expect(long.status, JSON.stringify(long.body)).toBe(400);
    expect(long.body.error.issues).toEqual([{ path: "action", message: "action is longer than 200 characters" }]);
  });
});

describe("ids and names on the admin procedures", () => {
  it("tRPC admin.updateUser, revokeNodeCredential and enrollmentTokens refuse a lone surrogate with BAD_REQUEST naming it", async () => {
    const before = await w.counts();
    await expect(w.caller("admin").admin.updateUser({ id: HALF, change: { name: "Ada" } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/id must be valid Unicode text/),
    });
    await expect(w.caller("admin").admin.revokeNodeCredential({ node: HALF })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/node must be valid Unicode text/),
    });
    await expect(w.caller("admin").admin.enrollmentTokens({ cluster: HALF })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/cluster must be valid Unicode text/),
    });
    expect(await w.counts()).toEqual(before);
  });
});

describe("cluster names, a GPU type and an OIDC rule's value", () => {
  it("PUT /budgets/{path}/allocation refuses a NUL or a lone surrogate in the cluster: 400 naming it, nothing changed", async () => {
    const before = await w.counts();
    const path = "/budgets/lab/language/pretraining/allocation";
    for (const cluster of ["h1\u000000", `h100${LOW_HALF}`]) {
      const r = await callRest(w, "PUT", path, { token: tokens.maya, body: { cluster, share: 0.05 } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.issues).toEqual([{ path: "cluster", message: expect.stringMatching(/^cluster must/) }]);
    }
    expect(await w.counts()).toEqual(before);
  });

  it("tRPC admin.createCluster and createOidcRule refuse a NUL or a lone surrogate with BAD_REQUEST naming the field", async () => {
    const before = await w.counts();
    const admin = w.caller("admin").admin;
    for (const bad of ["H\u0000100", HALF]) {
      await expect(admin.createCluster({ name: "b300", gpuType: bad })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/gpuType must/),
      });
      await expect(admin.createOidcRule({ match: "EMAIL_DOMAIN", value: bad, role: "RESEARCHER" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/value must/),
      });
    }
    expect(await w.db.prisma.cluster.count({ where: { name: "b300" } })).toBe(0);
    expect(await w.db.prisma.oidcRoleRule.count()).toBe(0);
    expect(await w.counts()).toEqual(before);
  });

  it("a lab file's shares naming a cluster with a NUL are a problem at their place, and GET /admin/export?cluster= with one is 400", async () => {
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "lab" })).token;
    const before = await w.counts();
    const lab = { tree: [{ path: "lab/language/pretraining", shares: { "h1\u000000": "10%" } }] };
    const r = await callRest(w, "POST", "/admin/import", { token: admin, body: lab });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["tree[0].shares.h1\u000000"]);
    expect(await w.counts()).toEqual(before);
    const out = await callRest(w, "GET", "/admin/export?cluster=h1%00", { token: admin });
    expect(out.status, JSON.stringify(out.body)).toBe(400);
    expect(out.body.error.issues).toEqual([{ path: "cluster", message: expect.stringMatching(/must not contain NUL/) }]);
  });
});
