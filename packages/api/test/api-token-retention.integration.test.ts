import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, ENDED_TOKEN_KEEP_DAYS, MAX_ENDED_TOKENS_PER_USER, MAX_LIVE_TOKENS_PER_USER } from "@tranche/domain";
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
    }
    const rows = await w.db.prisma.apiToken.count({ where: { userId: w.users.maya.id } });
    expect(rows).toBeLessThanOrEqual(MAX_ENDED_TOKENS_PER_USER);
    // The newest ended ones are what stays, and listed.
    const listed = await c.token.list();
    expect(listed.length).toBeLessThanOrEqual(MAX_LIVE_TOKENS_PER_USER + MAX_ENDED_TOKENS_PER_USER);
    expect(listed[0]!.name).toBe(`loop ${MAX_ENDED_TOKENS_PER_USER + 19}`);
  });
});
