import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { createApiToken } from "@tranche/domain";
import { TRPCError } from "@trpc/server";
import { enterCalls, enterJobRows, enterLogChunks, enterQueueRows } from "../src/request-gate";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

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

describe("one person's queue reads in flight", () => {
  it("ask for at most LIMITS.queueRowsInFlightPerUser pending rows together: past it 429, REST and tRPC alike", async () => {
    // One person's 16 reads of 10,000 rows at once held 1 GB of the web process: a read in flight
    // (here, one of the web app's pages of 500) leaves room for no read of the most rows.
    const held = enterQueueRows(w.users.ada.id, 500);
    try {
      const refused = await callRest(w, "GET", `/queue/h100?limit=${LIMITS.queueRowsMax}`, { token: adaToken });
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(
        /Your queue reads in progress ask for 500 pending rows, and one person's may ask for at most 10,000 at once/,
      );
      const trpc = await w
        .caller("ada")
        .queue.get({ cluster: "h100", limit: LIMITS.queueRowsMax })
        .catch((e: unknown) => e);
      expect(trpc).toBeInstanceOf(TRPCError);
      expect((trpc as TRPCError).code).toBe("TOO_MANY_REQUESTS");
      // What fits beside it is read, and another person is not held up.
      expect((await callRest(w, "GET", `/queue/h100?limit=${LIMITS.queueRowsMax - 500}`, { token: adaToken })).status).toBe(200);
      expect((await w.caller("ada").queue.page({ cluster: "h100", offset: 0, limit: 500 })).rows).toBeDefined();
      expect((await callRest(w, "GET", `/queue/h100?limit=${LIMITS.queueRowsMax}`, { token: otherToken })).status).toBe(200);
    } finally {
      held();
    }
    // Each read, answered or refused, left its rows: the whole bound is free again.
    enterQueueRows(w.users.ada.id, LIMITS.queueRowsInFlightPerUser)();
    expect((await callRest(w, "GET", `/queue/h100?limit=${LIMITS.queueRowsMax}`, { token: adaToken })).status).toBe(200);
    expect((await callRest(w, "GET", "/queue/nope", { token: adaToken })).status).toBe(404);
    enterQueueRows(w.users.ada.id, LIMITS.queueRowsInFlightPerUser)();
  });
});

describe("one person's job lists in flight", () => {
  it("ask for at most LIMITS.jobRowsInFlightPerUser jobs together: past it 429, REST and tRPC alike", async () => {
    // A listed job carries its command and environment: 1,000 of them were 72 MB of JSON, and one
    // person's 16 lists at once held the web process for over a minute. Here lists of 1,500 are in flight.
    const held = enterJobRows(w.users.ada.id, 1500);
    try {
      const refused = await callRest(w, "GET", "/jobs?limit=1000&active=true", { token: adaToken });
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(
        /Your job lists in progress ask for 1,500 jobs, and one person's may ask for at most 2,000 at once/,
      );
      const trpc = await w
        .caller("ada")
        .job.list({ limit: 1000 })
        .catch((e: unknown) => e);
      expect(trpc).toBeInstanceOf(TRPCError);
      expect((trpc as TRPCError).code).toBe("TOO_MANY_REQUESTS");
      expect((await callRest(w, "GET", "/jobs?limit=1000", { token: otherToken })).status).toBe(200);
      expect((await callRest(w, "GET", "/jobs", { token: adaToken })).status).toBe(200);
      expect(await w.caller("ada").job.list({ limit: 500 })).toBeInstanceOf(Array);
    } finally {
      held();
    }
    enterJobRows(w.users.ada.id, LIMITS.jobRowsInFlightPerUser)();
    expect((await callRest(w, "GET", "/jobs?cluster=nope", { token: adaToken })).status).toBe(404);
    enterJobRows(w.users.ada.id, LIMITS.jobRowsInFlightPerUser)();
  });
});

describe("one person's log pages in flight", () => {
  it("ask for at most LIMITS.logChunksInFlightPerUser chunks together: past it 429, REST and tRPC alike", async () => {
    // A chunk holds up to 64 Ki characters: a page of 1,000 was 66 MB of JSON, and one person's 16
    // pages at once held the web process 80 s. Here pages of 1,500 chunks are in flight.
    const id = (await w.caller("ada").job.submit(goodJob)).id;
    const held = enterLogChunks(w.users.ada.id, 1500);
    try {
      const refused = await callRest(w, "GET", `/jobs/${id}/logs?limit=1000`, { token: adaToken });
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(
        /Your log pages in progress ask for 1,500 chunks, and one person's may ask for at most 2,000 at once/,
      );
      const trpc = await w
        .caller("ada")
        .job.logs({ id, limit: 1000 })
        .catch((e: unknown) => e);
      expect(trpc).toBeInstanceOf(TRPCError);
      expect((trpc as TRPCError).code).toBe("TOO_MANY_REQUESTS");
      expect((await callRest(w, "GET", `/jobs/${id}/logs`, { token: adaToken })).status).toBe(200);
      expect((await w.caller("ada").job.logs({ id, limit: 500 })).jobId).toBe(id);
      expect((await callRest(w, "GET", `/jobs/${id}/logs?limit=1000`, { token: otherToken })).status).toBe(403);
    } finally {
      held();
    }
    enterLogChunks(w.users.ada.id, LIMITS.logChunksInFlightPerUser)();
    expect((await callRest(w, "GET", `/jobs/${id}/logs?limit=1000`, { token: adaToken })).status).toBe(200);
    expect((await callRest(w, "GET", `/jobs/999999/logs?limit=1000`, { token: adaToken })).status).toBe(404);
    enterLogChunks(w.users.ada.id, LIMITS.logChunksInFlightPerUser)();
  });
});
