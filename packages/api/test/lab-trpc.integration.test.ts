// The web's lab page procedures (admin.labCheck, labImport, labExport) against a real Postgres: admins
// only, refused before the text is read; a check changes nothing and lists the changes by kind; the
// problems of a bad file travel to the page each with its place in the file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "../src";
import { makeWorld, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_lab_trpc");
});
afterAll(async () => {
  await w?.db.drop();
});

const LAB = `users:
  - { email: "lin@lab.example", name: "Lin Lee" }
tree:
  - path: lab/language/agents
    members: ["lin@lab.example"]
`;

const shape = async () => ({
  ...(await w.counts()),
  users: await w.db.prisma.user.count(),
  nodes: await w.db.prisma.budgetTreeNode.count(),
  members: await w.db.prisma.budgetMember.count(),
});

describe("the lab file procedures", () => {
  it("refuse everyone but admins (researcher, managers in and out of a subtree, operator, another user, signed out) before reading the text", async () => {
    const before = await shape();
    for (const who of ["ada", "maya", "victor", "omar", "other"] as const) {
      const admin = w.caller(who).admin;
      for (const call of [
        () => admin.labCheck({ text: LAB }),
        () => admin.labImport({ text: LAB }),
        () => admin.labExport({}),
        () => admin.labImport({ nonsense: true } as never),
      ])
        await expect(call()).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await expect(w.caller(null).admin.labImport({ text: LAB })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect(await shape()).toEqual(before);
  });

  it("check what a file would change, by kind, changing nothing; import it; a second check finds nothing to change", async () => {
    const admin = w.caller("admin").admin;
    const before = await shape();
    const check = await admin.labCheck({ text: LAB });
    expect(check).toMatchObject({ dryRun: true, usersCreated: 1, nodesCreated: 1, membersAdded: 1, passwordLinks: [] });
    expect(check.grouped).toEqual({
      users: ["create user lin@lab.example (researcher)"],
      tree: ["create tree node lab/language/agents"],
      managers: [],
      members: ["add lin@lab.example as a member of lab/language/agents"],
      shares: [],
    });
    expect(await shape()).toEqual(before);
    const done = await admin.labImport({ text: LAB });
    expect(done).toMatchObject({ dryRun: false, usersCreated: 1, nodesCreated: 1, membersAdded: 1 });
    expect(done.passwordLinks.map((l) => l.email)).toEqual(["lin@lab.example"]);
    expect(await w.db.prisma.budgetTreeNode.findUnique({ where: { path: "lab/language/agents" } })).not.toBeNull();
    expect((await admin.labCheck({ text: LAB })).changes).toEqual([]);
    const lab = await admin.labExport({});
    expect(lab.tree.find((n) => n.path === "lab/language/agents")?.members).toEqual(["lin@lab.example"]);
  });

  it("refuse unreadable text with its line, and a file's problems each at its place, changing nothing", async () => {
    const admin = w.caller("admin").admin;
    const before = await shape();
    await expect(admin.labCheck({ text: "users:\n  - { email: [\n" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringMatching(/^The lab file is not valid YAML \(line \d\)$/),
    });
    await expect(admin.labImport({ text: "  " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin.labImport({ text: "x".repeat(1024 * 1024 + 1) })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("larger than 1 MiB"),
    });
    expect(await shape()).toEqual(before);

    const bad = "tree:\n  - path: lab/language/tools\n    members: [nobody@lab.example]\n    colour: red\n";
    const res = await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: new Request("http://127.0.0.1:3000/api/trpc/admin.labImport", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: { text: bad } }),
      }),
      router: appRouter,
      createContext: async () => ({ prisma: w.db.prisma, user: w.users.admin }),
      onError: () => undefined,
    });
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: { json: { message: string; data: { issues: unknown } } } }).error.json;
    expect(error.message).toMatch(/^The file has 1 problem; nothing was changed/);
    expect(error.data.issues).toEqual([{ path: "tree[0]", message: "unknown field colour" }]);
    expect(await shape()).toEqual(before);
  });
});
