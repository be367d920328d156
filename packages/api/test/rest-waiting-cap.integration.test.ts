import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// One person's script submitting in a loop must not grow the queue every cycle reads without end:
// past TRANCHE_MAX_WAITING_JOBS_PER_USER waiting jobs a submission is refused whole, naming the cap.

let w: World;
let adaToken: string;
let otherToken: string;

beforeAll(async () => {
  w = await makeWorld("api_waiting_cap");
  adaToken = (await createApiToken(w.db.prisma, w.users.ada, { name: "test" })).token;
  otherToken = (await createApiToken(w.db.prisma, w.users.other, { name: "test" })).token;
});
afterEach(() => {
  delete process.env.TRANCHE_MAX_WAITING_JOBS_PER_USER;
});
afterAll(async () => {
  await w?.db.drop();
});

const call = (method: string, path: string, opts?: Parameters<typeof callRest>[3]) => callRest(w, method, path, opts);
const waiting = (userId: string) => w.db.prisma.job.count({ where: { userId, state: { in: ["PENDING", "HELD"] } } });

describe("the cap on one person's waiting jobs", () => {
  it("takes submissions up to the cap, then refuses a job, a batch or an array past it with 409 and stores nothing; others still submit", async () => {
    process.env.TRANCHE_MAX_WAITING_JOBS_PER_USER = String((await waiting(w.users.ada.id)) + 3);
    const two = await call("POST", "/jobs/batch", { token: adaToken, body: { jobs: [goodJob, goodJob] } });
    expect(two.status).toBe(201);
    const third = await call("POST", "/jobs", { token: adaToken, body: goodJob });
    expect(third.status).toBe(201);

    const before = await w.counts();
    for (const body of [goodJob, { ...goodJob, array: "0-1" }]) {
      const r = await call("POST", "/jobs", { token: adaToken, body });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(409);
      expect(r.body.error.message).toMatch(/waiting .* at most [\d,]+ waiting at once \(TRANCHE_MAX_WAITING_JOBS_PER_USER\)/);
    }
    const batch = await call("POST", "/jobs/batch", { token: adaToken, body: { jobs: [goodJob] } });
    expect(batch.status).toBe(409);
    expect(await w.counts()).toEqual(before);

    const others = await call("POST", "/jobs", {
      token: otherToken,
      body: { ...goodJob, budget: "lab/vision/video", name: "other" },
    });
    expect(others.status).toBe(201);
  });

  it("holds for submissions sent at once: they are counted one after another, and those past the cap store nothing", async () => {
    const start = await waiting(w.users.ada.id);
    process.env.TRANCHE_MAX_WAITING_JOBS_PER_USER = String(start + 10);
    const array = { ...goodJob, array: "0-3" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => call("POST", "/jobs", { token: adaToken, body: array })));
    // 4 tasks each: two fit in 10, the third would make 12.
    expect(answers.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409, 409, 409]);
    expect(await waiting(w.users.ada.id)).toBe(start + 8);
  });

  it("0 turns the cap off", async () => {
    process.env.TRANCHE_MAX_WAITING_JOBS_PER_USER = "0";
    const r = await call("POST", "/jobs", { token: adaToken, body: goodJob });
    expect(r.status).toBe(201);
  });
});
