// Who reads which audit rows (packages/domain/src/admin/audit-scope.ts), through REST and tRPC against a
// real Postgres: researchers none, operators hosts and clusters, managers their own subtree, admins all;
// and paging by `before` walks exactly the caller's rows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addBudgetMember,
  applyNodeAction,
  createApiToken,
  createUser,
  issueEnrollmentToken,
  setUserLimit,
} from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

let w: World;
const tokens: Record<string, string> = {};
type Entry = { id: string; action: string; target: string; targetType: string };

beforeAll(async () => {
  w = await makeWorld("api_audit_scope");
  for (const who of ["ada", "maya", "victor", "omar", "admin"] as const)
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
  const { admin } = w.users;
  await addBudgetMember(w.db.prisma, admin, "lab/language/pretraining", w.users.other.email);
  await setUserLimit(w.db.prisma, admin, { budget: "lab/language/pretraining", maxGpusPerUser: 5 });
  await addBudgetMember(w.db.prisma, admin, "lab/vision/video", w.users.ada.email);
  await applyNodeAction(w.db.prisma, w.users.omar, { name: "h100-0" }, "cordon", "fan noise");
  await issueEnrollmentToken(w.db.prisma, w.users.omar, "h100", { expiresIn: 3600 });
  await createUser(w.db.prisma, admin, { email: "new@lab.example", name: "New", role: "RESEARCHER" }, "http://x");
});
afterAll(async () => {
  await w?.db.drop();
});

async function entries(who: string, query = "limit=500"): Promise<Entry[]> {
  const r = await callRest(w, "GET", `/audit?${query}`, { token: tokens[who] });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.entries as Entry[];
}
const targets = (es: Entry[]) => new Set(es.map((e) => e.target));
const types = (es: Entry[]) => new Set(es.map((e) => e.targetType));

describe("reading the audit log, scoped by role", () => {
  it("refuses a researcher in words on REST and tRPC, before reading the query", async () => {
    const r = await callRest(w, "GET", "/audit?before=nonsense", { token: tokens.ada });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toBe("Only operators and managers may read the audit log; you are signed in as a researcher.");
    await expect(w.caller("ada").admin.audit({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await callRest(w, "GET", "/audit", {})).status).toBe(401);
  });

  it("shows a manager their subtree's rows, not a sibling subtree's, nor hosts', clusters' or users'", async () => {
    const maya = await entries("maya");
    expect(maya.map((e) => e.action)).toEqual(expect.arrayContaining(["budget.member.add", "budget.userLimit"]));
    expect([...targets(maya)].every((t) => t === "lab/language" || t.startsWith("lab/language/"))).toBe(true);
    expect([...types(maya)].every((t) => t === "budget_tree_node" || t === "budget")).toBe(true);
    const victor = await entries("victor");
    expect(targets(victor)).toContain("lab/vision/video");
    expect([...targets(victor)].some((t) => t.startsWith("lab/language"))).toBe(false);
    // tRPC answers with the same rule.
    expect((await w.caller("maya").admin.audit({ limit: 500 })).map((e) => e.id)).toEqual(maya.map((e) => e.id));
  });

  it("shows an operator host and cluster rows (cordons, enrollment tokens), not the tree's or users'", async () => {
    const omar = await entries("omar");
    expect(omar.map((e) => e.action)).toEqual(expect.arrayContaining(["node.cordon", "enrollment-token.issue"]));
    expect(types(omar)).toEqual(new Set(["node", "cluster"]));
    expect((await w.caller("omar").admin.audit({ limit: 500 })).map((e) => e.id)).toEqual(omar.map((e) => e.id));
  });

  it("shows an admin every row", async () => {
    const all = await entries("admin");
    expect(all.length).toBe(await w.db.prisma.auditLog.count());
    for (const t of ["user", "node", "cluster", "budget_tree_node", "budget"]) expect(types(all)).toContain(t);
  });

  it("pages a manager's rows with before: every one of them once, in order, and nothing of anyone else's", async () => {
    for (let i = 1; i <= 4; i++) {
      await setUserLimit(w.db.prisma, w.users.admin, { budget: "lab/language/pretraining", maxGpusPerUser: 10 + i });
      await setUserLimit(w.db.prisma, w.users.admin, { budget: "lab/vision/video", maxGpusPerUser: 10 + i });
    }
    const whole = await entries("maya");
    expect(whole.length).toBeGreaterThan(5);
    const paged: Entry[] = [];
    let before = "";
    for (let guard = 0; guard < 50; guard++) {
      const page = await entries("maya", `limit=2${before ? `&before=${before}` : ""}`);
      paged.push(...page);
      if (page.length < 2) break;
      before = page[page.length - 1]!.id;
    }
    expect(paged.map((e) => e.id)).toEqual(whole.map((e) => e.id));
  });

  it("refuses a before that is not an entry's id, by name", async () => {
    const r = await callRest(w, "GET", "/audit?before=abc", { token: tokens.omar });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("before");
  });
});
