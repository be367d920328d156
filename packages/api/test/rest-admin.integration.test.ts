// The administration routes of REST /api/v1 against a real Postgres: each refuses the wrong role with
// 401/403 JSON, refuses bad input with a message naming the field and writes nothing (every row of
// every table it could touch is compared), and writes exactly one audit row on success.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, updateTreeNode } from "@tranche/domain";
import { issueNodeCredential } from "@tranche/domain/runtime";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
const tokens: Record<"admin" | "omar" | "maya" | "victor" | "ada", string> = {
  admin: "",
  omar: "",
  maya: "",
  victor: "",
  ada: "",
};

beforeAll(async () => {
  w = await makeWorld("api_rest_admin");
  for (const who of Object.keys(tokens) as (keyof typeof tokens)[])
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);

const TABLES = [
  "budget_tree_node",
  "budget_member",
  "budget_manager",
  "allocation",
  "allocation_change",
  "cluster",
  "node",
  "enrollment_token",
  '"user"',
  "account",
  "session",
  "api_token",
  "password_setup_token",
  "oidc_role_rule",
  "audit_log",
  "job",
];

/** One digest of every row of every table an admin route could write (api_token without lastUsedAt). */
async function rowsDigest(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    const sel = t === "api_token" ? `(id, "revokedAt")` : "x";
    const [r] = await w.db.prisma.$queryRawUnsafe<{ d: string | null }[]>(
      `SELECT md5(coalesce(string_agg(${sel}::text, '|' ORDER BY ${sel}::text), '')) AS d FROM ${t} x`,
    );
    out[t] = r!.d ?? "";
  }
  return out;
}

const audits = () => w.db.prisma.auditLog.count();

/** The request must answer `status` with a JSON error and change no row at all. */
async function refused(status: number, method: string, path: string, opts: Parameters<typeof callRest>[3], field?: string) {
  const before = await rowsDigest();
  const r = await call(method, path, opts);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(typeof r.body.error.message).toBe("string");
  if (field) {
    expect(r.body.error.message).toContain(field);
    expect((r.body.error.issues ?? []).map((i: { path: string }) => i.path)).toContain(field);
  }
  expect(await rowsDigest()).toEqual(before);
  return r;
}

type Caller = keyof typeof tokens | null;

/**
 * Who each route refuses before it reads its input: no token (401, `null`) and callers whose role or
 * subtree does not allow it (403). One table instead of the same refusals repeated per route; each
 * route's describe runs its row where its own state is in place.
 */
const ROUTES = {
  createCluster: {
    method: "POST",
    path: "/clusters",
    body: { name: "a100", gpuType: "A100", maxMinRuntime: "4h" },
    refuses: [null, "omar"],
  },
  createBudget: { method: "POST", path: "/budgets", body: { parent: "lab", name: "robotics" }, refuses: [null, "maya", "ada"] },
  updateBudget: { method: "PATCH", path: "/budgets/lab/robotics/arms", body: { name: "hands" }, refuses: [null, "maya"] },
  setAllocation: {
    method: "PUT",
    path: "/budgets/lab/language/pretraining/allocation",
    body: { cluster: "h100", share: 0.3 },
    refuses: [null, "ada", "victor"],
  },
  addMember: {
    method: "POST",
    path: "/budgets/lab/language/pretraining/members",
    body: { email: "omar@tranche.example" },
    refuses: [null, "ada", "victor"],
  },
  createUser: {
    method: "POST",
    path: "/users",
    body: { email: "new@lab.example", name: "New", role: "RESEARCHER" },
    refuses: [null, "omar"],
  },
  issueEnrollmentToken: { method: "POST", path: "/clusters/h100/enrollment-tokens", body: {}, refuses: [null, "maya"] },
  revokeCredential: { method: "POST", path: "/nodes/h100-0/revoke-credential", body: undefined, refuses: ["ada"] },
  audit: { method: "GET", path: "/audit", body: undefined, refuses: [null, "ada"] },
} satisfies Record<string, { method: string; path: string; body: unknown; refuses: Caller[] }>;

/** Every caller in the route's row is refused (401 without a token, else 403) and nothing is written. */
async function refusesWrongCallers(route: (typeof ROUTES)[keyof typeof ROUTES]) {
  for (const who of route.refuses as Caller[])
    await refused(who ? 403 : 401, route.method, route.path, {
      ...(who ? { token: tokens[who] } : {}),
      ...(route.body === undefined ? {} : { body: route.body }),
    });
}

/** The request must succeed and write exactly one audit row with this action. */
async function succeeds(status: number, method: string, path: string, opts: Parameters<typeof callRest>[3], action: string) {
  const before = await audits();
  const rowsBefore = await rowsDigest();
  const r = await call(method, path, opts);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(await audits()).toBe(before + 1);
  // The digest sees writes: a success changes it (so an unchanged digest in `refused` means something).
  expect(await rowsDigest()).not.toEqual(rowsBefore);
  const last = await w.db.prisma.auditLog.findFirstOrThrow({ orderBy: { id: "desc" } });
  expect(last.action).toBe(action);
  return r;
}

describe("POST /api/v1/clusters", () => {
  const body = { name: "a100", gpuType: "A100", maxMinRuntime: "4h" };
  it("refuses no token (401) and a non-admin (403), writing nothing", async () => {
    await refusesWrongCallers(ROUTES.createCluster);
  });
  it("refuses a bad name, a cap over 8h and a taken name, naming the field", async () => {
    await refused(400, "POST", "/clusters", { token: tokens.admin, body: { ...body, name: "A 100" } }, "name");
    await refused(400, "POST", "/clusters", { token: tokens.admin, body: { ...body, maxMinRuntime: "9h" } }, "maxMinRuntime");
    await refused(400, "POST", "/clusters", { token: tokens.admin, body: { ...body, gpuType: "" } }, "gpuType");
    await refused(409, "POST", "/clusters", { token: tokens.admin, body: { ...body, name: "h100" } }, "name");
  });
  it("creates the cluster with its cap, the root holding all of it, and one audit row", async () => {
    const r = await succeeds(201, "POST", "/clusters", { token: tokens.admin, body }, "cluster.create");
    expect(r.body.cluster).toMatchObject({ name: "a100", gpuType: "A100", maxMinRuntime: 4 * 3600 });
    const root = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab" },
      include: { allocations: { include: { cluster: true } } },
    });
    expect(root.allocations.find((a) => a.cluster.name === "a100")?.ppm).toBe(1_000_000);
  });
});

describe("POST /api/v1/budgets", () => {
  it("refuses no token, a manager above their subtree and a researcher", async () => {
    await refusesWrongCallers(ROUTES.createBudget);
  });
  it("refuses an unknown parent, a duplicate sibling, a bad name, a second root and a budget with members as parent", async () => {
    const t = tokens.admin;
    await refused(400, "POST", "/budgets", { token: t, body: { parent: "lab/nowhere", name: "x" } }, "parent");
    await refused(409, "POST", "/budgets", { token: t, body: { parent: "lab", name: "language" } }, "name");
    await refused(400, "POST", "/budgets", { token: t, body: { parent: "lab", name: "Has Spaces" } }, "name");
    await refused(400, "POST", "/budgets", { token: t, body: { name: "second-root" } }, "parent");
    const r = await refused(
      400,
      "POST",
      "/budgets",
      { token: t, body: { parent: "lab/language/pretraining", name: "x" } },
      "parent",
    );
    expect(r.body.error.message).toMatch(/member/);
  });
  it("creates a division and a budget under it, one audit row each", async () => {
    const d = await succeeds(
      201,
      "POST",
      "/budgets",
      { token: tokens.admin, body: { parent: "lab", name: "robotics" } },
      "tree.create",
    );
    expect(d.body.node.path).toBe("lab/robotics");
    const b = await succeeds(
      201,
      "POST",
      "/budgets",
      { token: tokens.admin, body: { parent: "lab/robotics", name: "arms" } },
      "tree.create",
    );
    expect(b.body.node.path).toBe("lab/robotics/arms");
  });
});

describe("PATCH /api/v1/budgets/{path}", () => {
  it("refuses no token and a manager outside their subtree", async () => {
    await refusesWrongCallers(ROUTES.updateBudget);
  });
  it("refuses a cycle, a duplicate name, an empty change and an unknown node", async () => {
    const t = tokens.admin;
    const cycle = await refused(
      400,
      "PATCH",
      "/budgets/lab/robotics",
      { token: t, body: { parent: "lab/robotics/arms" } },
      "parent",
    );
    expect(cycle.body.error.message).toMatch(/under itself/);
    await refused(409, "PATCH", "/budgets/lab/robotics", { token: t, body: { name: "vision" } }, "name");
    await refused(400, "PATCH", "/budgets/lab/robotics", { token: t, body: {} }, "name");
    await refused(404, "PATCH", "/budgets/lab/nowhere", { token: t, body: { name: "x" } });
  });
  it("renames a node and its subtree's paths follow; moves a node under another parent", async () => {
    await succeeds(200, "PATCH", "/budgets/lab/robotics", { token: tokens.admin, body: { name: "robots" } }, "tree.rename");
    expect(await w.db.prisma.budgetTreeNode.findUnique({ where: { path: "lab/robots/arms" } })).not.toBeNull();
    const r = await succeeds(
      200,
      "PATCH",
      "/budgets/lab%2Frobots%2Farms",
      { token: tokens.admin, body: { parent: "lab/language" } },
      "tree.move",
    );
    expect(r.body.node.path).toBe("lab/language/arms");
  });
  it("of two concurrent moves that together would make a cycle, one is refused", async () => {
    await call("POST", "/budgets", { token: tokens.admin, body: { parent: "lab/robots", name: "a" } });
    await call("POST", "/budgets", { token: tokens.admin, body: { parent: "lab/robots", name: "b" } });
    const results = await Promise.allSettled([
      updateTreeNode(w.db.prisma, w.users.admin, "lab/robots/a", { parent: "lab/robots/b" }),
      updateTreeNode(w.db.prisma, w.users.admin, "lab/robots/b", { parent: "lab/robots/a" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const nodes = await w.db.prisma.budgetTreeNode.findMany({ where: { path: { startsWith: "lab/robots/" } } });
    expect(nodes.map((n) => n.path).sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^lab\/robots\/(a\/b|b\/a)$/)]),
    );
  });
});

describe("DELETE /api/v1/budgets/{path}", () => {
  it("refuses a manager outside their subtree; refuses a budget with pending jobs and a node with children, with the counts", async () => {
    await refused(403, "DELETE", "/budgets/lab/language/arms", { token: tokens.victor });
    const job = await call("POST", "/jobs", { token: tokens.ada, body: goodJob });
    expect(job.status).toBe(201);
    const busy = await refused(409, "DELETE", "/budgets/lab/language/pretraining", { token: tokens.admin });
    expect(busy.body.error.message).toMatch(/has 1 pending or running job/);
    const parent = await refused(409, "DELETE", "/budgets/lab/language", { token: tokens.admin });
    expect(parent.body.error.message).toMatch(/has \d+ child nodes/);
  });
  it("archives an idle budget: it leaves the tree and its name stays taken", async () => {
    await succeeds(200, "DELETE", "/budgets/lab/language/arms", { token: tokens.admin }, "tree.archive");
    const tree = await call("GET", "/budgets", { token: tokens.admin });
    expect(JSON.stringify(tree.body)).not.toContain("lab/language/arms");
    await refused(404, "DELETE", "/budgets/lab/language/arms", { token: tokens.admin });
  });
});

describe("PUT /api/v1/budgets/{path}/allocation", () => {
  const path = "/budgets/lab/language/pretraining/allocation";
  it("refuses a researcher and a manager of another subtree", async () => {
    await refusesWrongCallers(ROUTES.setAllocation);
  });
  it("refuses a share over 1, siblings over 100% and an unknown cluster, naming the field", async () => {
    await refused(400, "PUT", path, { token: tokens.maya, body: { cluster: "h100", share: 1.5 } }, "share");
    const over = await refused(400, "PUT", path, { token: tokens.maya, body: { cluster: "h100", share: 1 } }, "share");
    expect(over.body.error.message).toMatch(/at most 100%/);
    await refused(400, "PUT", path, { token: tokens.maya, body: { cluster: "nope", share: 0.1 } }, "cluster");
  });
  it("sets the share as the manager, with the allocation history and one audit row", async () => {
    const r = await succeeds(200, "PUT", path, { token: tokens.maya, body: { cluster: "h100", share: 0.05 } }, "allocation.set");
    expect(r.body.allocation).toMatchObject({ ppm: 50_000, changed: true });
    const node = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/language/pretraining" },
      include: { allocations: { include: { cluster: true } } },
    });
    expect(node.allocations.find((a) => a.cluster.name === "h100")?.ppm).toBe(50_000);
  });
});

describe("GET /api/v1/budgets/{path}/members and /managers", () => {
  it("lists a node's people to admins and to managers inside their subtree, to nobody else", async () => {
    const members = await call("GET", "/budgets/lab/language/pretraining/members", { token: tokens.maya });
    expect(members.status).toBe(200);
    expect(members.body.path).toBe("lab/language/pretraining");
    expect(members.body.members.map((m: { email: string }) => m.email)).toContain("ada@tranche.example");
    const managers = await call("GET", "/budgets/lab/language/managers", { token: tokens.admin });
    expect(managers.status).toBe(200);
    expect(managers.body.managers.map((m: { email: string }) => m.email)).toContain("maya@tranche.example");
    // Outside Maya's subtree, and a researcher anywhere: refused, with a sentence.
    const outside = await refused(403, "GET", "/budgets/lab/vision/video/members", { token: tokens.maya });
    expect(outside.body.error.message).toMatch(/You do not manage 'lab\/vision\/video'/);
    await refused(403, "GET", "/budgets/lab/language/pretraining/members", { token: tokens.ada });
    await refused(401, "GET", "/budgets/lab/language/pretraining/members", {});
    await refused(404, "GET", "/budgets/lab/nowhere/members", { token: tokens.admin });
  });
});

describe("POST /api/v1/budgets/{path}/members and /managers", () => {
  it("members: refuses a researcher and a manager outside their subtree; refuses a bad or unknown e-mail", async () => {
    const p = "/budgets/lab/language/pretraining/members";
    await refusesWrongCallers(ROUTES.addMember);
    await refused(400, "POST", p, { token: tokens.maya, body: { email: "not-an-email" } }, "email");
    await refused(400, "POST", p, { token: tokens.maya, body: { email: "nobody@tranche.example" } }, "email");
    await refused(409, "POST", p, { token: tokens.maya, body: { email: "ada@tranche.example" } }, "email");
  });
  it("members: a manager adds a member inside their subtree", async () => {
    const r = await succeeds(
      201,
      "POST",
      "/budgets/lab/language/pretraining/members",
      { token: tokens.maya, body: { email: "omar@tranche.example" } },
      "budget.member.add",
    );
    expect(r.body.member).toEqual({ budget: "lab/language/pretraining", email: "omar@tranche.example" });
  });
  it("managers: refuses a manager; refuses a researcher as manager, naming the field", async () => {
    const p = "/budgets/lab/vision/managers";
    await refused(403, "POST", p, { token: tokens.maya, body: { email: "maya@tranche.example" } });
    const r = await refused(400, "POST", p, { token: tokens.admin, body: { email: "ada@tranche.example" } }, "email");
    expect(r.body.error.message).toMatch(/manager role first/);
  });
  it("managers: an admin makes a manager manage a subtree", async () => {
    await succeeds(
      201,
      "POST",
      "/budgets/lab/vision/managers",
      { token: tokens.admin, body: { email: "maya@tranche.example" } },
      "tree.manager.add",
    );
  });
});

describe("DELETE /api/v1/budgets/{path}/members and /managers?email=", () => {
  it("takes exactly one e-mail: a repeated, unknown, missing or malformed parameter is 400 naming it, and nothing changes", async () => {
    const members = "/budgets/lab/language/pretraining/members";
    const managers = "/budgets/lab/language/managers";
    const ada = "email=ada%40tranche.example";
    const maya = "email=maya%40tranche.example";
    for (const [path, field, says] of [
      // The first of a repeated e-mail was removed, and any other parameter was ignored.
      [`${members}?${ada}&email=omar%40tranche.example`, "email", "email is given twice; give it once"],
      [`${members}?${ada}&x=1`, "x", "x: unknown field 'x' in a member or manager (fields: email)"],
      [members, "email", "email is required"],
      [`${members}?email=`, "email", "email is not an e-mail address"],
      [`${members}?email=ada`, "email", "email is not an e-mail address"],
      [`${managers}?${maya}&${maya}`, "email", "email is given twice; give it once"],
      [`${managers}?${maya}&force=1`, "force", "force: unknown field 'force' in a member or manager (fields: email)"],
      [managers, "email", "email is required"],
    ] as const) {
      const r = await refused(400, "DELETE", path, { token: tokens.admin }, field);
      expect(r.body.error.message, path).toBe(says);
    }
    // One e-mail and nothing else removes that person, as before (Omar, added above).
    const removed = await call("DELETE", `${members}?email=omar%40tranche.example`, { token: tokens.admin });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.member).toMatchObject({ email: "omar@tranche.example" });
  });
});

describe("POST and PATCH /api/v1/users", () => {
  let newId = "";
  it("refuses an operator and bad input", async () => {
    await refusesWrongCallers(ROUTES.createUser);
    await refused(
      400,
      "POST",
      "/users",
      { token: tokens.admin, body: { email: "new@lab.example", name: "New", role: "BOSS" } },
      "role",
    );
    await refused(
      409,
      "POST",
      "/users",
      { token: tokens.admin, body: { email: "ada@tranche.example", name: "Ada", role: "RESEARCHER" } },
      "email",
    );
    await refused(400, "POST", "/users", { token: tokens.admin, body: { email: "new@lab.example", name: "" } }, "name");
  });
  it("creates a user with a one-time set-password link whose token is stored only as a hash", async () => {
    const r = await succeeds(
      201,
      "POST",
      "/users",
      { token: tokens.admin, body: { email: "New@Lab.example", name: "New Person", role: "RESEARCHER" } },
      "user.create",
    );
    expect(r.body.user).toMatchObject({ email: "new@lab.example", role: "RESEARCHER", disabled: false, hasPassword: false });
    const link = new URL(r.body.setPasswordUrl as string);
    expect(link.pathname).toBe("/set-password");
    const token = link.searchParams.get("token")!;
    expect(token.length).toBeGreaterThan(30);
    const dump = await w.db.prisma.$queryRawUnsafe<{ t: string }[]>(
      `SELECT string_agg(x::text, '|') AS t FROM password_setup_token x`,
    );
    expect(dump[0]!.t).not.toContain(token);
    const audit = await w.db.prisma.$queryRawUnsafe<{ t: string }[]>(`SELECT string_agg(x::text, '|') AS t FROM audit_log x`);
    expect(audit[0]!.t).not.toContain(token);
    newId = r.body.user.id;
  });
  it("PATCH refuses a manager, a bad role, an empty change and demoting yourself", async () => {
    await refused(403, "PATCH", `/users/${newId}`, { token: tokens.maya, body: { role: "MANAGER" } });
    await refused(400, "PATCH", `/users/${newId}`, { token: tokens.admin, body: { role: "KING" } }, "role");
    await refused(400, "PATCH", `/users/${newId}`, { token: tokens.admin, body: {} }, "role");
    await refused(400, "PATCH", `/users/${w.users.admin.id}`, { token: tokens.admin, body: { role: "RESEARCHER" } }, "role");
    await refused(404, "PATCH", "/users/nobody", { token: tokens.admin, body: { role: "MANAGER" } });
  });
  it("PATCH changes a role; disabling stops the user's API tokens and sessions at once", async () => {
    const r = await succeeds(200, "PATCH", `/users/${newId}`, { token: tokens.admin, body: { role: "MANAGER" } }, "user.update");
    expect(r.body.user.role).toBe("MANAGER");
    const u = await w.db.prisma.user.findUniqueOrThrow({ where: { id: newId } });
    const own = (await createApiToken(w.db.prisma, { id: u.id, email: u.email, name: u.name, role: "MANAGER" }, { name: "t" }))
      .token;
    await w.db.prisma.session.create({
      data: { userId: u.id, token: "session-of-new", expiresAt: new Date(Date.now() + 3_600_000) },
    });
    expect((await call("GET", "/me", { token: own })).status).toBe(200);
    await succeeds(200, "PATCH", `/users/${newId}`, { token: tokens.admin, body: { disabled: true } }, "user.disable");
    // Its holder is told the account is disabled; a revoked token of the same user, or an unknown
    // one, still gets only the plain refusal.
    const after = await call("GET", "/me", { token: own });
    expect(after.status).toBe(403);
    expect(after.body.error.message).toBe("The account this API token belongs to is disabled; ask an admin to enable it");
    const revoked = await createApiToken(w.db.prisma, { id: u.id, email: u.email, name: u.name, role: "MANAGER" }, { name: "r" });
    await w.db.prisma.apiToken.update({ where: { id: revoked.apiToken.id }, data: { revokedAt: new Date() } });
    for (const token of [revoked.token, "trn_unknown", "nonsense"]) {
      const r = await call("GET", "/me", { token });
      expect(r.status).toBe(401);
      expect(r.body.error.message).toBe("The API token is unknown, revoked or expired");
    }
    expect(await w.db.prisma.session.count({ where: { userId: newId } })).toBe(0);
  });
});

describe("POST /api/v1/users/{id}/password-link", () => {
  it("issues a new one-time link (admins); the user's earlier unused link ends", async () => {
    const path = `/users/${w.users.victor.id}/password-link`;
    await refused(401, "POST", path, {});
    await refused(403, "POST", path, { token: tokens.omar });
    await refused(404, "POST", "/users/nobody/password-link", { token: tokens.admin });
    const first = await succeeds(201, "POST", path, { token: tokens.admin }, "user.password-link");
    expect(first.body.setPasswordUrl).toMatch(/\/set-password\?token=tps_/);
    expect(Date.parse(first.body.expiresAt)).toBeGreaterThan(Date.now());
    await succeeds(201, "POST", path, { token: tokens.admin }, "user.password-link");
    const live = await w.db.prisma.passwordSetupToken.count({
      where: { userId: w.users.victor.id, usedAt: null, expiresAt: { gt: new Date() } },
    });
    expect(live).toBe(1);
  });
});

describe("POST /api/v1/clusters/{name}/enrollment-tokens", () => {
  it("refuses a manager, a bad expiry and an unknown cluster", async () => {
    await refusesWrongCallers(ROUTES.issueEnrollmentToken);
    await refused(
      400,
      "POST",
      "/clusters/h100/enrollment-tokens",
      { token: tokens.omar, body: { expiresIn: "forever" } },
      "expiresIn",
    );
    await refused(404, "POST", "/clusters/nope/enrollment-tokens", { token: tokens.omar, body: {} });
  });
  it("issues a token shown once and hashed at rest, listed with its state", async () => {
    const r = await succeeds(
      201,
      "POST",
      "/clusters/h100/enrollment-tokens",
      { token: tokens.omar, body: { expiresIn: "2h" } },
      "enrollment-token.issue",
    );
    expect(r.body.token).toMatch(/^tet_/);
    expect(Date.parse(r.body.expiresAt) - Date.now()).toBeGreaterThan(7000 * 1000);
    const dump = await w.db.prisma.$queryRawUnsafe<{ t: string }[]>(
      `SELECT string_agg(x::text, '|') AS t FROM enrollment_token x`,
    );
    expect(dump[0]!.t).not.toContain(r.body.token);
    const list = await call("GET", "/clusters/h100/enrollment-tokens", { token: tokens.omar });
    expect(list.body.tokens[0]).toMatchObject({
      id: r.body.id,
      status: "UNUSED",
      cluster: "h100",
      createdBy: "omar@tranche.example",
    });
    expect(JSON.stringify(list.body)).not.toContain(r.body.token);
  });
});

describe("POST /api/v1/nodes/{name}/revoke-credential", () => {
  it("refuses a researcher; an operator revokes a node's credential", async () => {
    const node = await w.db.prisma.node.findFirstOrThrow({ where: { name: "h100-0" } });
    await issueNodeCredential(w.db.prisma, node.id);
    await refusesWrongCallers(ROUTES.revokeCredential);
    await succeeds(200, "POST", "/nodes/h100-0/revoke-credential", { token: tokens.omar }, "node.revoke-credential");
    expect((await w.db.prisma.node.findUniqueOrThrow({ where: { id: node.id } })).agentCredentialHash).toBeNull();
    await refused(409, "POST", "/nodes/h100-0/revoke-credential", { token: tokens.omar });
  });
});

describe("GET /api/v1/audit", () => {
  it("refuses a researcher and a bad time filter", async () => {
    await refusesWrongCallers(ROUTES.audit);
    await refused(400, "GET", "/audit?since=yesterday", { token: tokens.admin }, "since");
    // A filter the log does not have is refused by name, not ignored (a typo read as "everything").
    const r = await refused(400, "GET", "/audit?page=2", { token: tokens.admin });
    expect(r.body.error.message).toContain("unknown field 'page' in an audit log query");
  });
  it("lists the actions newest first, filtered by actor, action, target and time", async () => {
    const all = await call("GET", "/audit?limit=500", { token: tokens.admin });
    expect(all.status).toBe(200);
    const actions = all.body.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["cluster.create", "tree.create", "user.create", "enrollment-token.issue"]));
    const byAction = await call("GET", "/audit?action=tree.", { token: tokens.admin });
    expect(byAction.body.entries.length).toBeGreaterThan(0);
    expect(byAction.body.entries.every((e: { action: string }) => e.action.startsWith("tree."))).toBe(true);
    const byActor = await call("GET", "/audit?actor=maya@", { token: tokens.admin });
    expect(new Set(byActor.body.entries.map((e: { actor: { email: string } }) => e.actor.email))).toEqual(
      new Set(["maya@tranche.example"]),
    );
    const byTarget = await call("GET", "/audit?target=new@lab.example", { token: tokens.admin });
    expect(byTarget.body.entries.map((e: { action: string }) => e.action).sort()).toEqual([
      "user.create",
      "user.disable",
      "user.update",
    ]);
    const future = await call("GET", `/audit?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, {
      token: tokens.admin,
    });
    expect(future.body.entries).toEqual([]);
  });
});

describe("duplicates", () => {
  // Whatever the route, a duplicate is a conflict with what exists (409) whose message names it, never
  // a 400 on one route and a 409 on the next; nothing is written.
  it("answer 409 naming the field on every admin route that creates something", async () => {
    const a = tokens.admin;
    const first = await call("POST", "/oidc-rules", {
      token: a,
      body: { match: "EMAIL_DOMAIN", value: "dup.example", role: "RESEARCHER" },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    for (const [method, path, body, field, words] of [
      ["POST", "/users", { email: "ada@tranche.example", name: "Ada" }, "email", /a user 'ada@tranche.example' already exists/],
      ["POST", "/clusters", { name: "h100", gpuType: "H100", maxMinRuntime: "1h" }, "name", /a cluster 'h100' already exists/],
      ["POST", "/budgets", { parent: "lab", name: "vision" }, "name", /'lab\/vision' already exists/],
      ["POST", "/budgets/lab/language/pretraining/members", { email: "ada@tranche.example" }, "email", /already a member/],
      ["POST", "/budgets/lab/language/managers", { email: "maya@tranche.example" }, "email", /already manages/],
      ["POST", "/oidc-rules", { match: "EMAIL_DOMAIN", value: "dup.example", role: "ADMIN" }, "value", /already a rule/],
    ] as const) {
      const r = await refused(409, method, path, { token: a, body }, field);
      expect(r.body.error.code).toBe("CONFLICT");
      expect(r.body.error.message, `${method} ${path}`).toMatch(words);
    }
  });

  it("answer 409 also when two requests create the same thing at the same moment (the database's unique key decides)", async () => {
    const body = { name: "race", gpuType: "H100", maxMinRuntime: "1h" };
    const answers = await Promise.all(Array.from({ length: 6 }, () => call("POST", "/clusters", { token: tokens.admin, body })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409)) {
      expect(r.body.error.code).toBe("CONFLICT");
      expect(r.body.error.issues.map((i: { path: string }) => i.path)).toEqual(["name"]);
    }
    expect(await w.db.prisma.cluster.count({ where: { name: "race" } })).toBe(1);
  });
});

describe("a caller without the role", () => {
  // The role is checked before the body is read: a malformed request gets the same 403 as a good one,
  // so a caller without the right learns nothing of the body's shape.
  it("gets 403, not 400, for a malformed body or query on every admin route, writing nothing", async () => {
    const requests: [Caller, string, string][] = [
      ["ada", "PATCH", "/clusters/h100"],
      ["maya", "PATCH", "/clusters/h100"],
      ["ada", "POST", "/clusters"],
      ["maya", "POST", "/clusters/h100/enrollment-tokens"],
      ["ada", "POST", "/budgets"],
      ["maya", "PATCH", "/budgets/lab/vision"],
      ["ada", "PUT", "/budgets/lab/language/pretraining/allocation"],
      ["ada", "POST", "/budgets/lab/language/pretraining/members"],
      ["maya", "POST", "/budgets/lab/language/managers"],
      ["omar", "POST", "/users"],
      ["omar", "PATCH", `/users/${w.users.ada.id}`],
      ["omar", "POST", "/oidc-rules"],
      ["ada", "PUT", "/budgets/user-limit"],
    ];
    for (const [who, method, path] of requests) {
      for (const raw of ["{not json", JSON.stringify({ nonsense: [1, 2, 3] }), ""]) {
        const r = await refused(403, method, path, { token: tokens[who!], raw });
        expect(r.body.error.code, `${who} ${method} ${path}`).toBe("FORBIDDEN");
      }
    }
    await refused(403, "GET", "/audit?limit=many&from=yesterday", { token: tokens.ada });
  });
});

describe("unknown fields on the admin routes", () => {
  // A field the route does not know is refused, naming it, and nothing is written: an admin who sends
  // `budgets` to POST /users or `email` to PATCH /users must not believe it was applied.
  it("are refused with 400 naming the field, writing nothing", async () => {
    const admin = tokens.admin;
    const ada = w.users.ada;
    for (const [method, path, body, field] of [
      ["POST", "/users", { email: "typo@lab.example", name: "T", budgets: ["lab/language/pretraining"] }, "budgets"],
      ["PATCH", `/users/${ada}`, { role: "MANAGER", email: "foo@lab.example" }, "email"],
      ["PATCH", `/users/${ada}`, { rol: "ADMIN" }, "rol"],
      ["POST", "/clusters", { name: "b200", gpuType: "B200", nodes: 5 }, "nodes"],
      ["POST", "/clusters/h100/enrollment-tokens", { expiresIn: "1h", x: 1 }, "x"],
      ["POST", "/budgets", { parent: "lab", name: "robotics", allocation: 0.1 }, "allocation"],
      ["PATCH", "/budgets/lab/vision", { nmae: "cv" }, "nmae"],
      ["PUT", "/budgets/lab/vision/allocation", { cluster: "h100", share: 0.5, clsuter: "h100" }, "clsuter"],
      ["POST", "/budgets/lab/vision/members", { email: "ada@tranche.example", role: "MANAGER" }, "role"],
    ] as const) {
      const r = await refused(400, method, path, { token: admin, body }, field);
      expect(r.body.error.message, `${method} ${path}`).toMatch(new RegExp(`unknown field '${field}'`));
    }
  });
});

describe("the OpenAPI document", () => {
  it("documents every admin route the issue names, with its request schema", async () => {
    const r = await call("GET", "/openapi.json");
    const routes: [string, string][] = [
      ["/clusters", "post"],
      ["/budgets", "post"],
      ["/budgets/{path}", "patch"],
      ["/budgets/{path}", "delete"],
      ["/budgets/{path}/allocation", "put"],
      ["/budgets/{path}/members", "post"],
      ["/budgets/{path}/managers", "post"],
      ["/users", "post"],
      ["/users/{id}", "patch"],
      ["/clusters/{name}/enrollment-tokens", "post"],
      ["/audit", "get"],
    ];
    for (const [path, method] of routes) expect(r.body.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(r.body.paths["/clusters"].get).toBeDefined();
    expect(r.body.components.schemas.CreateTreeNode.properties).toHaveProperty("parent");
    expect(r.body.components.schemas.PutAllocation.properties).toHaveProperty("share");
  });
});
