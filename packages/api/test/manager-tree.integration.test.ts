// Managers shape the tree strictly below the nodes they manage (tRPC, REST and the use-cases
// themselves): who is refused, that the refusal comes before the input is read or any node looked up,
// that the tree's own rules still apply, and the audit rows naming who did it. Maya manages
// lab/language, Victor lab/vision.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveTreeNode, createApiToken, createTreeNode, updateTreeNode } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_manager_tree");
});
afterAll(async () => {
  await w?.db.drop();
});

const snapshot = async () => ({
  ...(await w.counts()),
  paths: (await w.db.prisma.budgetTreeNode.findMany({ select: { path: true, archivedAt: true }, orderBy: { path: "asc" } }))
    .map((n) => `${n.path}${n.archivedAt ? " (archived)" : ""}`)
    .join(","),
});

/** Every call is refused with `code` and nothing at all changes. */
async function refusedAll(code: string, calls: (() => Promise<unknown>)[], message?: RegExp) {
  const before = await snapshot();
  for (const call of calls) {
    const e = await call().then(
      () => null,
      (x: unknown) => x,
    );
    expect(e, String(call)).toMatchObject({ code });
    if (message) expect((e as Error).message).toMatch(message);
  }
  expect(await snapshot()).toEqual(before);
}

const lastAudit = () => w.db.prisma.auditLog.findFirstOrThrow({ orderBy: { id: "desc" } });

describe("tRPC: a manager shapes the tree below the node they manage", () => {
  it("refuses a researcher and an operator anywhere, before reading the input", async () => {
    for (const who of ["ada", "omar"] as const) {
      const a = w.caller(who).admin;
      await refusedAll(
        "FORBIDDEN",
        [
          () => a.createNode({ parent: "lab/language", name: "x" }),
          () => a.updateNode({ path: "lab/language/evaluation", change: { name: "evals" } }),
          () => a.archiveNode({ path: "lab/language/safety" }),
          () => a.createNode({ nonsense: true } as never),
          () => a.updateNode({ nonsense: true } as never),
        ],
        /needs the manager role/,
      );
    }
  });

  it("refuses a manager above, beside or outside their subtree the same way, whatever the input and whether the node exists", async () => {
    const maya = w.caller("maya").admin;
    await refusedAll(
      "FORBIDDEN",
      [
        // the ancestor and a sibling's subtree
        () => maya.createNode({ parent: "lab", name: "robotics" }),
        () => maya.createNode({ parent: "lab/vision", name: "x" }),
        () => maya.updateNode({ path: "lab/vision/video", change: { name: "clips" } }),
        () => maya.archiveNode({ path: "lab/vision/3d" }),
        () => maya.updateNode({ path: "lab", change: { name: "org" } }),
        // a node that does not exist, and bad input, outside: the same refusal (no 404, no 400)
        () => maya.archiveNode({ path: "lab/vision/nowhere" }),
        () => maya.createNode({ parent: "lab/vision", name: "Not A Name" }),
        () => maya.updateNode({ path: "lab/vision/video", change: { colour: "red" } } as never),
        () => maya.createNode({ name: "second-root" }),
        () => maya.createNode({ nonsense: true } as never),
      ],
      /You do not manage|Only admins may start the tree/,
    );
  });

  it("refuses a manager renaming, moving or archiving the node they manage itself", async () => {
    const maya = w.caller("maya").admin;
    // Archiving lab/language would be refused for its children too: the subtree comes first.
    await refusedAll(
      "FORBIDDEN",
      [
        () => maya.updateNode({ path: "lab/language", change: { name: "nlp" } }),
        () => maya.updateNode({ path: "lab/language", change: { parent: "lab/language/evaluation" } }),
        () => maya.archiveNode({ path: "lab/language" }),
      ],
      /You manage 'lab\/language' itself/,
    );
  });

  it("lets a manager add nodes at any depth, rename, move and archive inside, one audit row each naming them", async () => {
    const maya = w.caller("maya").admin;
    const audits = await w.db.prisma.auditLog.count();
    const group = await maya.createNode({ parent: "lab/language", name: "long-context" });
    expect(group.path).toBe("lab/language/long-context");
    expect(await lastAudit()).toMatchObject({ action: "tree.create", actorId: w.users.maya.id, targetId: group.id });
    const leaf = await maya.createNode({ parent: "lab/language/long-context", name: "student-a" });
    expect(leaf.path).toBe("lab/language/long-context/student-a");

    const renamed = await maya.updateNode({ path: leaf.path, change: { name: "student-b" } });
    expect(renamed.path).toBe("lab/language/long-context/student-b");
    expect(await lastAudit()).toMatchObject({
      action: "tree.rename",
      actorId: w.users.maya.id,
      details: { from: "lab/language/long-context/student-a", to: "lab/language/long-context/student-b" },
    });
    const moved = await maya.updateNode({ path: renamed.path, change: { parent: "lab/language" } });
    expect(moved.path).toBe("lab/language/student-b");
    expect(await lastAudit()).toMatchObject({ action: "tree.move", actorId: w.users.maya.id });

    const archived = await maya.archiveNode({ path: moved.path });
    expect(archived.path).toBe("lab/language/student-b");
    expect(await lastAudit()).toMatchObject({ action: "tree.archive", actorId: w.users.maya.id, targetId: leaf.id });
    expect(await w.db.prisma.auditLog.count()).toBe(audits + 5);
  });

  it("refuses a manager moving a node out of their subtree or a foreign node into it", async () => {
    const maya = w.caller("maya").admin;
    const victor = w.caller("victor").admin;
    await refusedAll(
      "FORBIDDEN",
      [
        () => maya.updateNode({ path: "lab/language/long-context", change: { parent: "lab/vision" } }),
        () => maya.updateNode({ path: "lab/language/long-context", change: { parent: "lab" } }),
        () => maya.updateNode({ path: "lab/vision/3d", change: { parent: "lab/language" } }),
        () => victor.updateNode({ path: "lab/vision/3d", change: { parent: "lab/language/long-context" } }),
      ],
      /You do not manage/,
    );
  });

  it("keeps the tree's own rules for a manager: members, children, duplicates, names", async () => {
    const maya = w.caller("maya").admin;
    // The example of the task: pretraining is a budget with members, so it cannot get children.
    await refusedAll(
      "BAD_REQUEST",
      [() => maya.createNode({ parent: "lab/language/pretraining", name: "long-context" })],
      /member/,
    );
    await refusedAll("BAD_REQUEST", [() => maya.createNode({ parent: "lab/language", name: "Not A Name" })]);
    await refusedAll("CONFLICT", [() => maya.createNode({ parent: "lab/language", name: "evaluation" })], /already exists/);
    await maya.createNode({ parent: "lab/language/long-context", name: "student-c" });
    await refusedAll("CONFLICT", [() => maya.archiveNode({ path: "lab/language/long-context" })], /1 child node/);
    await refusedAll("NOT_FOUND", [() => maya.archiveNode({ path: "lab/language/nowhere" })]);
  });

  it("leaves choosing managers to admins", async () => {
    await refusedAll("FORBIDDEN", [
      () => w.caller("maya").admin.addManager({ path: "lab/language/long-context", email: "victor@tranche.example" }),
      () => w.caller("maya").admin.removeManager({ path: "lab/language", email: "maya@tranche.example" }),
    ]);
  });

  it("leaves an admin free anywhere, the root's children included", async () => {
    const admin = w.caller("admin").admin;
    const n = await admin.createNode({ parent: "lab", name: "robotics" });
    expect(await lastAudit()).toMatchObject({ action: "tree.create", actorId: w.users.admin.id });
    await admin.updateNode({ path: n.path, change: { name: "robots" } });
    await admin.archiveNode({ path: "lab/robots" });
    expect(await lastAudit()).toMatchObject({ action: "tree.archive", actorId: w.users.admin.id, targetId: n.id });
  });
});

describe("the use-cases check the subtree themselves", () => {
  it("refuse a manager outside their subtree, and one whose role was taken away, before reading a node", async () => {
    const p = w.db.prisma;
    const { maya } = w.users;
    const demoted = { ...maya, role: "RESEARCHER" as const };
    await refusedAll("FORBIDDEN", [
      () => createTreeNode(p, maya, { parent: "lab/vision", name: "x" }),
      () => updateTreeNode(p, maya, "lab/vision/video", { name: "clips" }),
      () => updateTreeNode(p, maya, "lab/language/long-context", { parent: "lab/vision" }),
      () => archiveTreeNode(p, maya, "lab/language"),
      () => archiveTreeNode(p, maya, "lab/vision/nowhere"),
      // A manager made a researcher keeps their budget_manager rows; the role decides.
      () => createTreeNode(p, demoted, { parent: "lab/language", name: "x" }),
    ]);
  });
});

describe("REST: the tree's routes for a manager", () => {
  const token = async (who: "maya" | "victor" | "ada") => (await createApiToken(w.db.prisma, w.users[who], { name: who })).token;

  it("creates, renames and archives inside the subtree, with one audit row each", async () => {
    const t = await token("maya");
    const made = await callRest(w, "POST", "/budgets", { token: t, body: { parent: "lab/language", name: "rest-made" } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(await lastAudit()).toMatchObject({ action: "tree.create", actorId: w.users.maya.id });
    const renamed = await callRest(w, "PATCH", "/budgets/lab/language/rest-made", { token: t, body: { name: "rest-kept" } });
    expect(renamed.body.node.path).toBe("lab/language/rest-kept");
    const archived = await callRest(w, "DELETE", "/budgets/lab%2Flanguage%2Frest-kept", { token: t });
    expect(archived.status, JSON.stringify(archived.body)).toBe(200);
    expect(await lastAudit()).toMatchObject({ action: "tree.archive", actorId: w.users.maya.id });
  });

  it("answers 403 outside the subtree, on the managed node itself and to a researcher, before the body is read", async () => {
    const maya = await token("maya");
    const victor = await token("victor");
    const ada = await token("ada");
    const before = await snapshot();
    for (const [who, method, path, body] of [
      [maya, "POST", "/budgets", { parent: "lab/vision", name: "Not A Name" }],
      [maya, "POST", "/budgets", { name: "root" }],
      [maya, "PATCH", "/budgets/lab/vision/nowhere", {}],
      [maya, "PATCH", "/budgets/lab/language", { name: "nlp" }],
      [maya, "PATCH", "/budgets/lab/language/long-context", { parent: "lab/vision" }],
      [victor, "PATCH", "/budgets/lab/vision/3d", { parent: "lab/language" }],
      [maya, "DELETE", "/budgets/lab/language", undefined],
      [victor, "DELETE", "/budgets/lab/language/long-context/student-c", undefined],
      [ada, "POST", "/budgets", { parent: "lab/language", name: "x" }],
      [ada, "DELETE", "/budgets/lab/language/long-context/student-c", undefined],
    ] as const) {
      const r = await callRest(w, method, path, { token: who, ...(body ? { body } : {}) });
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(403);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("the tree marks the nodes the writes accept as parents (takesChildren), which the Budgets page's Move offers", async () => {
    const { prisma } = w.db;
    const marks = async () => {
      const tree = await w.caller("maya").budget.tree();
      const all = (n: NonNullable<typeof tree.root>): NonNullable<typeof tree.root>[] => [n, ...n.children.flatMap(all)];
      return new Map(all(tree.root!).map((n) => [n.path, n.takesChildren]));
    };
    let m = await marks();
    expect(m.get("lab/language")).toBe(true);
    expect(m.get("lab/language/pretraining")).toBe(false); // members
    // Jobs charged to it refuse it too, members gone or not: the tree says so as the write does.
    await w.caller("ada").job.submit({ ...goodJob, name: "keeps-a-leaf" });
    await prisma.budgetMember.deleteMany({ where: { budget: { path: "lab/language/pretraining" } } });
    m = await marks();
    expect(m.get("lab/language/pretraining")).toBe(false);
    await expect(w.caller("maya").admin.createNode({ parent: "lab/language/pretraining", name: "child" })).rejects.toThrow(
      "pending or running job",
    );
  });
});
