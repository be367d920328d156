// The Users page at a lab's size: admin.userPage answers a page at a time, found by a part of a name or
// an e-mail, with how many match; nobody but an admin learns who the users are.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeWorld, type World } from "./fixtures";

let w: World;
let everyone = 0;
beforeAll(async () => {
  w = await makeWorld("api_user_page");
  // 60 people from a lab file, and three whose names hold LIKE's own characters.
  await w.db.prisma.user.createMany({
    data: [
      ...Array.from({ length: 60 }, (_, i) => ({
        email: `person${String(i).padStart(2, "0")}@lab.example`,
        name: `Person ${i}`,
      })),
      { email: "a_b@lab.example", name: "Underscore Person" },
      { email: "axb@lab.example", name: "Fifty% Off" },
      { email: "fiftyx@lab.example", name: "Fiftyx Off" },
    ],
  });
  everyone = await w.db.prisma.user.count();
});
afterAll(async () => {
  await w?.db.drop();
});

describe("admin.userPage", () => {
  it("pages through every user in the list's order, each once, with the count", async () => {
    const admin = w.caller("admin").admin;
    const first = await admin.userPage({ limit: 25 });
    expect(first.total).toBe(everyone);
    expect(first.users).toHaveLength(25);
    expect(first.users[0]!.role).toBe("ADMIN");
    const seen = [...first.users];
    for (let offset = 25; offset < everyone; offset += 25) seen.push(...(await admin.userPage({ limit: 25, offset })).users);
    expect(seen.map((u) => u.email)).toEqual((await admin.users()).map((u) => u.email));
    expect((await admin.userPage({ offset: everyone })).users).toEqual([]);
  });

  it("finds users by a part of their e-mail or name, ignoring case, and counts only those", async () => {
    const admin = w.caller("admin").admin;
    const byMail = await admin.userPage({ q: "SON4", limit: 5 });
    expect(byMail.total).toBe(10);
    expect(byMail.users.map((u) => u.email)).toEqual([40, 41, 42, 43, 44].map((i) => `person${i}@lab.example`));
    expect((await admin.userPage({ q: "  person 7 " })).users.map((u) => u.name)).toEqual(["Person 7"]);
    expect(await admin.userPage({ q: "nobody-by-that-name" })).toEqual({ users: [], total: 0, offset: 0 });
  });

  it("takes '%' and '_' in the search as themselves, not as wildcards", async () => {
    const admin = w.caller("admin").admin;
    expect((await admin.userPage({ q: "a_b" })).users.map((u) => u.email)).toEqual(["a_b@lab.example"]);
    expect((await admin.userPage({ q: "fifty%" })).users.map((u) => u.email)).toEqual(["axb@lab.example"]);
    expect((await admin.userPage({ q: "%" })).total).toBe(1);
    expect((await admin.userPage({ q: "_" })).total).toBe(1);
    expect((await admin.userPage({ q: "\\" })).total).toBe(0);
  });

  it("refuses a bad query in words that name the field, for an admin", async () => {
    const admin = w.caller("admin").admin;
    for (const [input, words] of [
      [{ limit: 0 }, "limit must be at least 1"],
      [{ limit: 101 }, "limit cannot exceed 100"],
      [{ limit: 2.5 }, "limit must be a whole number"],
      [{ offset: -1 }, "offset cannot be negative"],
      [{ q: "x".repeat(201) }, "q is longer than 200 characters"],
      [{ q: 7 }, "q must be a string"],
      [{ page: 2 }, "unknown field 'page' in a user list query"],
    ] as const)
      await expect(admin.userPage(input as never)).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringContaining(words),
      });
  });

  it("is for admins only: every other role, and another user, is refused before the input is read", async () => {
    for (const who of ["ada", "maya", "victor", "omar", "other"] as const) {
      await expect(w.caller(who).admin.userPage({})).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(w.caller(who).admin.userPage({ limit: -5 } as never)).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    await expect(w.caller("maya").admin.userPage({ q: "ada" })).rejects.toThrow(
      "This needs the admin role; you are signed in as a manager.",
    );
    await expect(w.caller(null).admin.userPage({})).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
