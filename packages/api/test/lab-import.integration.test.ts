// POST /api/v1/admin/import against a real Postgres: the example lab file (40 people) imports, a second
// import changes nothing, a dry run changes nothing, a file with several mistakes reports each one with
// its place and changes nothing (every row of every table it could touch is compared), and a caller who
// is not an admin is refused before the body is read.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { labFileYaml, type LabFile } from "@tranche/contracts";
import { createAdminWithPassword, createApiToken, createCluster, createUser, type Actor } from "@tranche/domain";
import { handleRest } from "../src/rest";
import { TEST_ORIGINS } from "./fixtures";

const EXAMPLE = readFileSync(new URL("../../../docs/examples/lab.yaml", import.meta.url), "utf8");

let db: TestDatabase;
let adminToken = "";
let researcherToken = "";

beforeAll(async () => {
  db = await createTestDatabase("lab_import");
  const admin: Actor = await createAdminWithPassword(db.prisma, {
    email: "root@lab.example",
    name: "Root Admin",
    password: "x".repeat(12),
  });
  await createCluster(db.prisma, admin, { name: "h100", gpuType: "H100", maxMinRuntime: 3600 });
  await createCluster(db.prisma, admin, { name: "b200", gpuType: "B200", maxMinRuntime: 3600 });
  const r = await createUser(
    db.prisma,
    admin,
    { email: "rita@lab.example", name: "Rita Researcher", role: "RESEARCHER" },
    "http://x",
  );
  const researcher: Actor = { id: r.user.id, email: r.user.email, name: r.user.name, role: "RESEARCHER" };
  adminToken = (await createApiToken(db.prisma, admin, { name: "test" })).token;
  researcherToken = (await createApiToken(db.prisma, researcher, { name: "test" })).token;
});
afterAll(async () => {
  await db?.drop();
});

async function post(token: string, body: string, opts: { dryRun?: boolean; type?: string } = {}) {
  const path = `/admin/import${opts.dryRun ? "?dryRun=true" : ""}`;
  const req = new Request(`http://127.0.0.1:3000/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": opts.type ?? "application/yaml" },
    body,
  });
  const res = await handleRest(req, "/admin/import", { prisma: db.prisma, origins: TEST_ORIGINS });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const TABLES = [
  "budget_tree_node",
  "budget_member",
  "budget_manager",
  "allocation",
  "allocation_change",
  "cluster",
  '"user"',
  "account",
  "session",
  "password_setup_token",
  "audit_log",
];

/** Every row of every table an import could write, as text. */
async function rows(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const t of TABLES) {
    const [r] = await db.prisma.$queryRawUnsafe<{ d: string | null }[]>(
      `SELECT coalesce(string_agg(x::text, '|' ORDER BY x::text), '') AS d FROM ${t} x`,
    );
    out[t] = r!.d ?? "";
  }
  return out;
}

const MISTAKES = `
users:
  - { email: not-an-email, name: Nobody }
  - { email: new.person@lab.example, name: New Person }
tree:
  - path: lab/vision/detection
    shares: { h100: 60% }
  - path: lab/vision/detection
  - path: lab/robotics/arms
  - path: lab/science
    shares: { h100: 10% }
  - path: lab/vision
    members: [eli.ruiz@lab.example]
  - path: lab/language/evaluation
    shares: { a100: 10% }
  - path: lab/language/pretraining
    managers: [new.person@lab.example]
`;

describe("POST /admin/import", () => {
  it("refuses a caller who is not an admin with 403 before reading the body", async () => {
    const before = await rows();
    const r = await post(researcherToken, "{ this is not a lab file", { type: "application/json" });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("FORBIDDEN");
    expect(await rows()).toEqual(before);
  });

  it("reports in a dry run what the example file would change, and changes nothing", async () => {
    const before = await rows();
    const r = await post(adminToken, EXAMPLE, { dryRun: true });
    expect(r.status).toBe(200);
    expect(r.body.import).toMatchObject({
      dryRun: true,
      usersCreated: 40,
      nodesCreated: 7,
      membersAdded: 36,
      managersAdded: 4,
      sharesChanged: 12,
      passwordLinks: [],
    });
    expect(await rows()).toEqual(before);
  });

  it("imports the example file of 40 people in one go", async () => {
    const r = await post(adminToken, EXAMPLE);
    expect(r.status).toBe(201);
    expect(r.body.import).toMatchObject({ dryRun: false, usersCreated: 40, nodesCreated: 7, membersAdded: 36, managersAdded: 4 });
    expect(r.body.import.passwordLinks).toHaveLength(40);
    expect(r.body.import.passwordLinks[0].setPasswordUrl).toMatch(/\/set-password\?token=/);
    const vision = await db.prisma.budgetTreeNode.findUniqueOrThrow({
      where: { path: "lab/vision" },
      include: { managers: { include: { user: true } }, allocations: { include: { cluster: true } } },
    });
    expect(vision.managers.map((m) => m.user.email).sort()).toEqual(["ana.ruiz@lab.example", "bo.ruiz@lab.example"]);
    expect(Object.fromEntries(vision.allocations.map((a) => [a.cluster.name, a.ppm]))).toEqual({ h100: 550_000, b200: 400_000 });
    expect(await db.prisma.budgetMember.count({ where: { budget: { path: "lab/language/evaluation" } } })).toBe(9);
    expect(await db.prisma.auditLog.count({ where: { action: "lab.import" } })).toBe(1);
  });

  it("changes nothing when the same file is imported again", async () => {
    const before = await rows();
    const r = await post(adminToken, EXAMPLE);
    expect(r.status).toBe(201);
    expect(r.body.import.changes).toEqual([]);
    // A user listed without a role keeps theirs: the file is not read as a demotion to researcher.
    const noRole = await post(adminToken, "users:\n  - { email: ana.ruiz@lab.example, name: Ana Ruiz }\n");
    expect(noRole.body.import.changes).toEqual([]);
    expect(await rows()).toEqual(before);
  });

  it("exports the lab as a lab file that imports again changing nothing", async () => {
    const get = (token: string, query = "") =>
      handleRest(
        new Request(`http://127.0.0.1:3000/api/v1/admin/export${query}`, { headers: { authorization: `Bearer ${token}` } }),
        "/admin/export",
        { prisma: db.prisma, origins: TEST_ORIGINS },
      );
    expect((await get(researcherToken)).status).toBe(403);
    const res = await get(adminToken);
    expect(res.status).toBe(200);
    const { lab } = (await res.json()) as { lab: LabFile };
    expect(lab.users).toHaveLength(42);
    expect(lab.tree.map((n) => n.path)).toEqual([
      "lab",
      "lab/language",
      "lab/language/evaluation",
      "lab/language/pretraining",
      "lab/vision",
      "lab/vision/detection",
      "lab/vision/generative",
    ]);
    expect(lab.tree[4]).toEqual({
      path: "lab/vision",
      managers: ["ana.ruiz@lab.example", "bo.ruiz@lab.example"],
      shares: { b200: "40%", h100: "55%" },
    });
    const h100 = (await (await get(adminToken, "?cluster=h100")).json()) as { lab: LabFile };
    expect(h100.lab.tree[4]!.shares).toEqual({ h100: "55%" });
    expect((await get(adminToken, "?cluster=a100")).status).toBe(404);

    const before = await rows();
    const again = await post(adminToken, labFileYaml(lab));
    expect(again.status).toBe(201);
    expect(again.body.import.changes).toEqual([]);
    expect(await rows()).toEqual(before);
  });

  it("reports every mistake of a file, each at its place, and changes nothing", async () => {
    const before = await rows();
    const r = await post(adminToken, MISTAKES);
    expect(r.status).toBe(400);
    const issues = Object.fromEntries(
      (r.body.error.issues as { path: string; message: string }[]).map((i) => [i.path, i.message]),
    );
    expect(issues["users[0].email"]).toMatch(/not an e-mail address/);
    expect(issues["tree[1].path"]).toMatch(/listed twice \(also tree\[0\]\)/);
    expect(issues["tree[2].path"]).toMatch(/no tree node 'lab\/robotics'/);
    expect(issues["tree[3].shares.h100"]).toMatch(/would sum to 110%/);
    expect(issues["tree[4].members[0]"]).toMatch(/not a budget/);
    expect(issues["tree[5].shares.a100"]).toMatch(/Unknown cluster 'a100'/);
    expect(issues["tree[6].managers[0]"]).toMatch(/give them the manager role first/);
    expect(Object.keys(issues)).toHaveLength(7);
    expect(r.body.error.message).toMatch(/^The file has 7 problems; nothing was changed/);
    expect(await rows()).toEqual(before);
  });

  it("refuses a file over its limits, naming them, and changes nothing", async () => {
    const before = await rows();
    const big = await post(adminToken, "#".repeat(1024 * 1024 + 1));
    expect(big.status).toBe(413);
    expect(big.body.error.message).toMatch(/larger than 1 MiB/);
    const users = Array.from({ length: 2001 }, (_, i) => ({ email: `p${i}@lab.example`, name: `P ${i}` }));
    const many = await post(adminToken, JSON.stringify({ users }), { type: "application/json" });
    expect(many.status).toBe(400);
    expect(many.body.error.issues).toEqual([{ path: "users", message: "users holds more than 2,000 entries" }]);
    expect(await rows()).toEqual(before);
  });

  it("reads JSON as well, and names an unreadable YAML file's line", async () => {
    const json = await post(adminToken, JSON.stringify({ users: [], tree: [{ path: "lab/vision", shares: { h100: "55%" } }] }), {
      type: "application/json",
    });
    expect(json.status).toBe(201);
    expect(json.body.import.changes).toEqual([]);
    const bad = await post(adminToken, "users:\n  - { email: a@b.c\ntree: [", { dryRun: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/not valid YAML/);
  });

  it("lets siblings trade share on a cluster whatever their order in the file", async () => {
    const r = await post(
      adminToken,
      "tree:\n  - { path: lab/language, shares: { h100: 55% } }\n  - { path: lab/vision, shares: { h100: 45% } }\n",
    );
    expect(r.status).toBe(201);
    expect(r.body.import.changes).toEqual([
      "set lab/language's share on h100 to 55% (was 45%)",
      "set lab/vision's share on h100 to 45% (was 55%)",
    ]);
  });
});
