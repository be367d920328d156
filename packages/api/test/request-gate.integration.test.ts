import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { enterCalls } from "../src/request-gate";
import { callRest, makeWorld, type World } from "./fixtures";

// REST counts each request against its person's calls in flight (request-gate.ts), and frees it when
// the answer is ready, whatever the answer.

let w: World;
let adaToken: string;
let otherToken: string;

beforeAll(async () => {
  w = await makeWorld("api_request_gate");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  otherToken = (await createApiToken(w.db.prisma, w.users.other, { name: "test" })).token;
});
afterAll(async () => {
  await w?.db.drop();
});

describe("one person's requests in flight", () => {
  it("past the bound are 429 with Retry-After, for that person only; a finished request frees its place", async () => {
    const held = enterCalls(w.users.ada.id, LIMITS.callsInFlightPerUser);
    try {
      const refused = await callRest(w, "GET", "/budgets", { token: adaToken });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("TOO_MANY_REQUESTS");
      expect(refused.body.error.message).toMatch(/at most 16 calls may run at once for one person; try again in a moment/);
      expect((await callRest(w, "GET", "/budgets", { token: otherToken })).status).toBe(200);
    } finally {
      held();
    }
    // Answered, refused or failed: each request leaves its place, so the whole bound is free again.
    expect((await callRest(w, "GET", "/budgets", { token: adaToken })).status).toBe(200);
    expect((await callRest(w, "GET", "/jobs/999999", { token: adaToken })).status).toBe(404);
    expect((await callRest(w, "POST", "/jobs", { token: adaToken, body: { cluster: "h100" } })).status).toBe(400);
    enterCalls(w.users.ada.id, LIMITS.callsInFlightPerUser)();
  });
});
