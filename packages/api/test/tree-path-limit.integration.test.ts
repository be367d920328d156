import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

// A budget path is at most LIMITS.keyChars (200) characters, the node's and every one below it: the
// longest a job can be charged to, and a bound on the tree's depth. Without it a manager could nest
// thousands of nodes, and every Budgets page (budget.tree, GET /budgets) overflowed its stack walking
// them. Each refusal is a 400 naming the field, with nothing changed.

let w: World;
let maya = "";
beforeAll(async () => {
  w = await makeWorld("api_tree_path_limit");
  maya = (await createApiToken(w.db.prisma, w.users.maya, { name: "maya" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

const n = (letter: string, chars: number) => letter.repeat(chars);
const A = `lab/language/${n("a", 60)}`; // 73 characters
const B = `${A}/${n("b", 60)}`; // 134
const C = `${B}/${n("c", 60)}`; // 195
const tree = () => w.db.prisma.budgetTreeNode.findMany({ select: { path: true }, orderBy: { path: "asc" } });

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
function refused(r: { status: number; body: Record<string, any> }, field: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.error.issues).toEqual([
    { path: field, message: expect.stringMatching(new RegExp(`a path is at most ${LIMITS.keyChars} characters`)) },
  ]);
}

describe("a budget path of more than 200 characters", () => {
  it("is refused when a manager adds a node, at 201 characters and not at 200", async () => {
    for (const [parent, name] of [
      ["lab/language", n("a", 60)],
      [A, n("b", 60)],
      [B, n("c", 60)],
    ])
      expect((await callRest(w, "POST", "/budgets", { token: maya, body: { parent, name } })).status).toBe(201);
    const before = await tree();
    const audits = (await w.counts()).audits;
    refused(await callRest(w, "POST", "/budgets", { token: maya, body: { parent: C, name: "ddddd" } }), "name");
    expect(await tree()).toEqual(before);
    expect((await w.counts()).audits).toBe(audits);
    const fits = await callRest(w, "POST", "/budgets", { token: maya, body: { parent: C, name: "dddd" } });
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);
    expect(fits.body.node.path).toHaveLength(LIMITS.keyChars);
  });

  it("is refused when a move or a rename would take a node below the subtree past it", async () => {
    for (const [parent, name] of [
      ["lab/language", "mv"],
      ["lab/language/mv", n("m", 50)],
    ])
      expect((await callRest(w, "POST", "/budgets", { token: maya, body: { parent, name } })).status).toBe(201);
    const before = await tree();
    // Under C the node itself would be 198 characters, its child 249.
    refused(await callRest(w, "PATCH", "/budgets/lab/language/mv", { token: maya, body: { parent: C } }), "parent");
    expect(await tree()).toEqual(before);
    const moved = await callRest(w, "PATCH", "/budgets/lab/language/mv", { token: maya, body: { parent: B } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const after = await tree();
    // Renamed to 64 characters, its child would be 250.
    refused(await callRest(w, "PATCH", `/budgets/${B}/mv`, { token: maya, body: { name: n("r", 64) } }), "name");
    expect(await tree()).toEqual(after);
  });

  it("in a lab file is a problem at its place, and nothing of the file is applied", async () => {
    const admin = (await createApiToken(w.db.prisma, w.users.admin, { name: "admin" })).token;
    const before = await tree();
    const x = `lab/vision/${n("x", 64)}`;
    const lab = { tree: [{ path: x }, { path: `${x}/${n("y", 64)}` }, { path: `${x}/${n("y", 64)}/${n("z", 64)}` }] };
    const r = await callRest(w, "POST", "/admin/import", { token: admin, body: lab });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.issues).toEqual([
      { path: "tree[2].path", message: expect.stringMatching(/a path is at most 200 characters/) },
    ]);
    expect(await tree()).toEqual(before);
  });
});
