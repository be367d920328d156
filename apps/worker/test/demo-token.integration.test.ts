import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { API_TOKENS_PER_HOUR, createApiToken, hashToken, readApiToken, type Actor } from "@tranche/domain";
import { freshGeneratorToken, GENERATOR_TOKEN } from "../src/demo-token";

describe("the demo workload's generator token", () => {
  let db: TestDatabase;
  let actor: Actor;

  beforeAll(async () => {
    db = await createTestDatabase("demo_token");
    const u = await db.prisma.user.create({ data: { email: "gen@test.example", name: "Generated", role: "RESEARCHER" } });
    actor = { id: u.id, email: u.email, name: u.name, role: "RESEARCHER" };
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("revokes the previous start's token through the users' revoke, so the audit log records it", async () => {
    const own = await createApiToken(db.prisma, actor, { name: "my laptop", expiresInDays: 1 });
    const first = await freshGeneratorToken(db.prisma, actor);
    const second = await freshGeneratorToken(db.prisma, actor);

    expect(await readApiToken(db.prisma, first)).toEqual({ refused: "unknown" });
    expect(await readApiToken(db.prisma, second)).toMatchObject({ actor: { id: actor.id } });
    expect(await readApiToken(db.prisma, own.token)).toMatchObject({ actor: { id: actor.id } }); // not the generator's
    const old = await db.prisma.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(first) } });
    expect(old.revokedAt).not.toBeNull();
    const revokes = await db.prisma.auditLog.findMany({ where: { action: "token.revoke" } });
    expect(revokes).toHaveLength(1);
    expect(revokes[0]).toMatchObject({
      actorId: actor.id,
      targetType: "api_token",
      targetId: old.id,
      details: { name: GENERATOR_TOKEN },
    });
  });
  it("is not counted against the hourly limit on the tokens a person makes", async () => {
    for (let i = 0; i < API_TOKENS_PER_HOUR + 2; i++) await freshGeneratorToken(db.prisma, actor);
    const creates = await db.prisma.auditLog.findMany({
      where: { action: "token.create", details: { path: ["madeBy"], equals: "the demo workload generator" } },
    });
    expect(creates.length).toBeGreaterThanOrEqual(API_TOKENS_PER_HOUR + 2);
  });
});
