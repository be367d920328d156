import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser, updateUser } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// A person's display name is 1 to 100 characters without control characters, on every admin path
// (REST, tRPC, the domain functions the scripts call); a refused name changes nothing. A job's name
// refuses control characters too. better-auth's own routes: apps/web/test/user-names.integration.test.ts.

let w: World;
let adminToken = "";
const LONG = "N".repeat(101);
const ESCAPED = "Ada \u001b]0;pwned\u0007\u001b[2J";
const BAD_NAMES: [string, RegExp][] = [
  [LONG, /^name is longer than 100 characters$/],
  [ESCAPED, /^name must not contain control characters/],
  ["Ada\u009bResearcher", /^name must not contain control characters/],
  ["   ", /^name is required$/],
];

beforeAll(async () => {
  w = await makeWorld("api_user_names");
  adminToken = (await createApiToken(w.db.prisma, w.users.admin, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const users = () => w.db.prisma.user.findMany({ select: { id: true, name: true }, orderBy: { id: "asc" } });

describe("display names on the admin paths", () => {
  it("REST POST /users and PATCH /users/{id} refuse a 101-character name and control characters, changing nothing", async () => {
    const before = await users();
    const audits = await w.db.prisma.auditLog.count();
    for (const [name, message] of BAD_NAMES) {
      const created = await callRest(w, "POST", "/users", { token: adminToken, body: { email: "new@lab.example", name } });
      expect(created.status, JSON.stringify(created.body)).toBe(400);
      expect(created.body.error.issues).toEqual([{ path: "name", message: expect.stringMatching(message) }]);
      const changed = await callRest(w, "PATCH", `/users/${w.users.ada.id}`, { token: adminToken, body: { name } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(400);
      expect(changed.body.error.issues).toEqual([{ path: "name", message: expect.stringMatching(message) }]);
    }
    expect(await users()).toEqual(before);
    expect(await w.db.prisma.auditLog.count()).toBe(audits);
  });

  it("tRPC admin.createUser and admin.updateUser refuse them the same way", async () => {
    const before = await users();
    const admin = w.caller("admin").admin;
    // A direct caller's message is zod's JSON (the /api/trpc route words it: trpc-errors test); it holds the sentence.
    for (const [name, sentence] of BAD_NAMES) {
      const message = new RegExp(sentence.source.replace(/^\^|\$$/g, ""));
      await expect(admin.createUser({ email: "new@lab.example", name })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(message),
      });
      await expect(admin.updateUser({ id: w.users.ada.id, change: { name } })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(message),
      });
    }
    expect(await users()).toEqual(before);
  });

  it("the domain functions refuse them too (scripts call these without a schema)", async () => {
    const before = await users();
    for (const [name, message] of BAD_NAMES) {
      await expect(
        createUser(w.db.prisma, w.users.admin, { email: "new@lab.example", name, role: "RESEARCHER" }, "http://x"),
      ).rejects.toMatchObject({ code: "BAD_INPUT", field: "name", message: expect.stringMatching(message) });
      await expect(updateUser(w.db.prisma, w.users.admin, w.users.ada.id, { name })).rejects.toMatchObject({
        code: "BAD_INPUT",
        field: "name",
        message: expect.stringMatching(message),
      });
    }
    expect(await users()).toEqual(before);
  });

  it("takes a name of exactly 100 characters, trimmed", async () => {
    const name = "Ada " + "é".repeat(96);
    const r = await callRest(w, "PATCH", `/users/${w.users.ada.id}`, { token: adminToken, body: { name: `  ${name} ` } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.user.name).toBe(name);
    await updateUser(w.db.prisma, w.users.admin, w.users.ada.id, { name: "Ada Researcher" });
  });
});

describe("job names", () => {
  it("a submission refuses a name with control characters, naming the field, and stores no job", async () => {
    const token = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
    const jobs = await w.db.prisma.job.count();
    for (const name of ["\u001b]0;pwned\u0007\u001b[2J\u001b[31mFAKE", "evil\rHELD", "a\u009bb"]) {
      const r = await callRest(w, "POST", "/jobs", { token, body: { ...goodJob, name } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.issues).toEqual([
        { path: "name", message: "name must not contain control characters (such as ESC, BEL, tab or a line break)" },
      ]);
    }
    expect(await w.db.prisma.job.count()).toBe(jobs);
  });
});
