// The Admin section's tRPC procedures and the flows REST does not cover: the set-password link works
// once (and is refused when expired), OIDC mapping rules give a first-time user a role and budgets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "better-auth/crypto";
import { applyOidcRules, passwordLinkIsLive } from "@tranche/domain";
import { makeWorld, type World } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_admin_trpc");
});
afterAll(async () => {
  await w?.db.drop();
});

describe("admin procedures", () => {
  it("refuse a researcher, a manager and a signed-out caller, writing nothing", async () => {
    const before = await w.counts();
    await expect(w.caller("ada").admin.createNode({ parent: "lab", name: "x" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(w.caller("maya").admin.users()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(w.caller("ada").admin.audit({})).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(w.caller(null).admin.createCluster({ name: "x", gpuType: "X" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(w.caller("ada").admin.issueEnrollmentToken({ cluster: "h100" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await w.counts()).toEqual(before);
  });

  it("refuse a caller without the role before reading the input: FORBIDDEN, never BAD_REQUEST", async () => {
    const before = await w.counts();
    const bad = { nonsense: true } as never;
    const ada = w.caller("ada").admin;
    const maya = w.caller("maya").admin;
    for (const call of [
      () => ada.updateClusterPolicy(bad),
      () => maya.updateClusterPolicy(bad),
      () => ada.createCluster(bad),
      () => maya.createUser(bad),
      () => maya.issueEnrollmentToken(bad),
      () => ada.setShare(bad),
      () => ada.addMember(bad),
      () => maya.addManager(bad),
      () => maya.createOidcRule(bad),
      () => ada.audit(bad),
    ])
      await expect(call()).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await w.counts()).toEqual(before);
  });

  it("show a node's members and managers to admins and to managers of its subtree only", async () => {
    const inLanguage = await w.caller("maya").admin.people({ path: "lab/language/pretraining" });
    expect(inLanguage.members.map((m) => m.email)).toContain("ada@tranche.example");
    expect((await w.caller("admin").admin.people({ path: "lab/vision/video" })).members.length).toBeGreaterThan(0);
    // Maya manages lab/language, not lab/vision: she learns no names there.
    const e = await w
      .caller("maya")
      .admin.people({ path: "lab/vision/video" })
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("You do not manage 'lab/vision/video'") });
    await expect(w.caller("ada").admin.people({ path: "lab/language/pretraining" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(w.caller("omar").admin.people({ path: "lab/language/pretraining" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });

  it("name the field of a bad input", async () => {
    const e = await w
      .caller("admin")
      .admin.createNode({ parent: "lab/nowhere", name: "x" })
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("parent") });
  });
});

describe("the set-password link", () => {
  it("sets a password once; a second use and an expired link are refused", async () => {
    const admin = w.caller("admin");
    const r = await admin.admin.createUser({ email: "lin@lab.example", name: "Lin", role: "RESEARCHER" });
    const token = new URL(r.setPasswordUrl).searchParams.get("token")!;
    const anon = w.caller(null);
    await expect(anon.account.setPassword({ token, password: "short" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await anon.account.setPassword({ token, password: "lin's long password" })).toEqual({ email: "lin@lab.example" });
    const acc = await w.db.prisma.account.findFirstOrThrow({ where: { userId: r.user.id, providerId: "credential" } });
    expect(await verifyPassword({ hash: acc.password!, password: "lin's long password" })).toBe(true);
    await expect(anon.account.setPassword({ token, password: "another password" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("already used or expired"),
    });

    const link = await admin.admin.resetPasswordLink({ id: r.user.id });
    const fresh = new URL(link.setPasswordUrl).searchParams.get("token")!;
    await w.db.prisma.passwordSetupToken.updateMany({
      where: { userId: r.user.id, usedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expect(anon.account.setPassword({ token: fresh, password: "another password" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const still = await w.db.prisma.account.findFirstOrThrow({ where: { userId: r.user.id, providerId: "credential" } });
    expect(still.password).toBe(acc.password);
  });

  it("a reset ends the browser sessions the user had; the page knows a dead link before anyone types", async () => {
    const admin = w.caller("admin");
    const r = await admin.admin.createUser({ email: "kim@lab.example", name: "Kim", role: "RESEARCHER" });
    const first = new URL(r.setPasswordUrl).searchParams.get("token")!;
    expect(await passwordLinkIsLive(w.db.prisma, first)).toBe(true);
    const anon = w.caller(null);
    await anon.account.setPassword({ token: first, password: "kim's first password" });
    expect(await passwordLinkIsLive(w.db.prisma, first)).toBe(false); // used
    expect(await passwordLinkIsLive(w.db.prisma, "tps_bogus")).toBe(false);
    // Signed in on two browsers (and one other user, whose session stays).
    const day = new Date(Date.now() + 86_400_000);
    for (const token of ["kim-laptop", "kim-phone"])
      await w.db.prisma.session.create({ data: { token, userId: r.user.id, expiresAt: day } });
    const other = await w.db.prisma.user.findFirstOrThrow({ where: { email: { not: "kim@lab.example" } } });
    await w.db.prisma.session.create({ data: { token: "someone-else", userId: other.id, expiresAt: day } });
    const link = await admin.admin.resetPasswordLink({ id: r.user.id });
    await anon.account.setPassword({
      token: new URL(link.setPasswordUrl).searchParams.get("token")!,
      password: "kim's new password",
    });
    expect(await w.db.prisma.session.count({ where: { userId: r.user.id } })).toBe(0);
    expect(await w.db.prisma.session.count({ where: { token: "someone-else" } })).toBe(1);
  });
});

describe("OIDC mapping rules", () => {
  it("refuse a rule naming a group of budgets, naming the field", async () => {
    await expect(
      w.caller("admin").admin.createOidcRule({ match: "GROUP", value: "nlp", role: "RESEARCHER", budgets: ["lab/language"] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("budgets.0") });
  });

  it("give a first-time user the highest matching role and every matching rule's budgets", async () => {
    const admin = w.caller("admin");
    await admin.admin.createOidcRule({
      match: "EMAIL_DOMAIN",
      value: "@Uni.example",
      role: "RESEARCHER",
      budgets: ["lab/language/evaluation"],
    });
    await admin.admin.createOidcRule({ match: "GROUP", value: "gpu-ops", role: "OPERATOR", budgets: [] });
    const u = await w.db.prisma.user.create({ data: { email: "sam@uni.example", name: "Sam" } });
    const applied = await applyOidcRules(w.db.prisma, u.id, { email: u.email, groups: ["gpu-ops", "other"] });
    expect(applied).toEqual({ role: "OPERATOR", budgets: ["lab/language/evaluation"] });
    const after = await w.db.prisma.user.findUniqueOrThrow({
      where: { id: u.id },
      include: { memberships: { include: { budget: true } } },
    });
    expect(after.role).toBe("OPERATOR");
    expect(after.memberships.map((m) => m.budget.path)).toEqual(["lab/language/evaluation"]);
    // An existing account linked later keeps a higher role an admin gave it; it still gets the budgets.
    const boss = await w.db.prisma.user.create({ data: { email: "boss@uni.example", name: "Boss", role: "ADMIN" } });
    const kept = await applyOidcRules(w.db.prisma, boss.id, { email: boss.email, groups: [] });
    expect(kept).toEqual({ role: "ADMIN", budgets: ["lab/language/evaluation"] });
    expect((await w.db.prisma.user.findUniqueOrThrow({ where: { id: boss.id } })).role).toBe("ADMIN");
    const none = await w.db.prisma.user.create({ data: { email: "kim@elsewhere.example", name: "Kim" } });
    expect(await applyOidcRules(w.db.prisma, none.id, { email: none.email, groups: [] })).toBeNull();
  });
});
