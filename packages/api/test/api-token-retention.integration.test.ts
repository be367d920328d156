import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  API_TOKENS_PER_HOUR,
  createApiToken,
  ENDED_TOKEN_KEEP_DAYS,
  MAX_ENDED_TOKENS_PER_USER,
  MAX_LIVE_TOKENS_PER_USER,
} from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

// API tokens that ended (revoked or expired) are kept 30 days and at most 100 a person, so making and
// revoking tokens in a loop cannot grow the table without end, and listings show what is live and
// what ended lately, not every token ever made.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_token_retention");
});
afterAll(async () => {
  await w?.db.drop();
});

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);

describe("ended API tokens", () => {
  it("listings (REST GET /tokens, tRPC token.list) leave out tokens that ended over 30 days ago", async () => {
    const ada = w.users.ada;
    const make = async (name: string) => (await createApiToken(w.db.prisma, ada, { name })).apiToken.id;
    const live = await make("live");
    const recent = await make("revoked lately");
    const oldRevoked = await make("revoked long ago");
    const oldExpired = await make("expired long ago");
    await w.db.prisma.apiToken.update({ where: { id: recent }, data: { revokedAt: daysAgo(2) } });
    await w.db.prisma.apiToken.update({ where: { id: oldRevoked }, data: { revokedAt: daysAgo(ENDED_TOKEN_KEEP_DAYS + 1) } });
    await w.db.prisma.apiToken.update({ where: { id: oldExpired }, data: { expiresAt: daysAgo(ENDED_TOKEN_KEEP_DAYS + 1) } });
    const rest = await callRest(w, "GET", "/tokens", { token: (await createApiToken(w.db.prisma, ada, { name: "rest" })).token });
    expect(rest.status).toBe(200);
    const restIds = (rest.body.tokens as { id: string }[]).map((t) => t.id);
    const trpcIds = (await w.caller("ada").token.list()).map((t) => t.id);
    for (const ids of [restIds, trpcIds]) {
      expect(ids).toEqual(expect.arrayContaining([live, recent]));
      expect(ids).not.toContain(oldRevoked);
      expect(ids).not.toContain(oldExpired);
    }
    // Making that last token deleted the two ended long ago; the one revoked lately stays.
    const left = (await w.db.prisma.apiToken.findMany({ where: { userId: ada.id } })).map((t) => t.id);
    expect(left).toEqual(expect.arrayContaining([live, recent]));
    expect(left).not.toContain(oldRevoked);
    expect(left).not.toContain(oldExpired);
  });

  it("making and revoking tokens in a loop keeps a person's rows bounded", async () => {
    const c = w.caller("maya");
    for (let i = 0; i < MAX_ENDED_TOKENS_PER_USER + 20; i++) {
      const { apiToken } = await c.token.create({ name: `loop ${i}` });
      await c.token.revoke({ id: apiToken.id });
      // Made hours ago, as a slow loop would: the hourly bound on making tokens is another test's.
      await w.db.prisma.apiToken.update({
        where: { id: apiToken.id },
        data: { createdAt: new Date(Date.now() - 3 * 3_600_000) },
      });
    }
    const rows = await w.db.prisma.apiToken.count({ where: { userId: w.users.maya.id } });
    expect(rows).toBeLessThanOrEqual(MAX_ENDED_TOKENS_PER_USER);
    // The newest ended ones are what stays, and listed.
    const listed = await c.token.list();
    expect(listed.length).toBeLessThanOrEqual(MAX_LIVE_TOKENS_PER_USER + MAX_ENDED_TOKENS_PER_USER);
    expect(listed[0]!.name).toBe(`loop ${MAX_ENDED_TOKENS_PER_USER + 19}`);
  });

  it("a person may make API_TOKENS_PER_HOUR tokens an hour; the next is refused (429, saying when), writing nothing", async () => {
    const c = w.caller("victor");
    const victor = w.users.victor;
    for (let i = 0; i < API_TOKENS_PER_HOUR; i++) {
      const { apiToken } = await c.token.create({ name: `pace ${i}` });
      await c.token.revoke({ id: apiToken.id });
    }
    // The oldest of them was made 50 minutes ago: another may be made in 10 minutes.
    const oldest = await w.db.prisma.apiToken.findFirstOrThrow({ where: { userId: victor.id, name: "pace 0" } });
    await w.db.prisma.apiToken.update({ where: { id: oldest.id }, data: { createdAt: new Date(Date.now() - 50 * 60_000) } });
    const audits = await w.db.prisma.auditLog.count({ where: { actorId: victor.id } });
    const tokens = await w.db.prisma.apiToken.count({ where: { userId: victor.id } });
    await expect(c.token.create({ name: "one too many" })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: `You have made ${API_TOKENS_PER_HOUR} API tokens in the last hour, the most one person may; you may make another in 10 minutes`,
    });
    expect(await w.db.prisma.auditLog.count({ where: { actorId: victor.id } })).toBe(audits);
    expect(await w.db.prisma.apiToken.count({ where: { userId: victor.id } })).toBe(tokens);
    // A command on the server (npm run admin) is not held to it; once the oldest is an hour old, the person may again.
    await createApiToken(w.db.prisma, victor, { name: "from the server" }, "npm run admin -- create-token");
    await w.db.prisma.apiToken.update({ where: { id: oldest.id }, data: { createdAt: new Date(Date.now() - 61 * 60_000) } });
    await w.db.prisma.apiToken.updateMany({
      where: { name: "from the server" },
      data: { createdAt: new Date(Date.now() - 61 * 60_000) },
    });
    expect((await c.token.create({ name: "an hour later" })).apiToken.name).toBe("an hour later");
  });
});
