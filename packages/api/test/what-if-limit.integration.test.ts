import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { createApiToken, createWhatIfLimiter, type Actor } from "@tranche/domain";
import { appRouter, createCaller, trpcResponseMeta } from "../src";
import { handleRest } from "../src/rest";
import { makeWorld, type World } from "./fixtures";

// What-if previews run two scheduling cycles in the web process: one at a time per person and a few
// per minute, past that 429 with a plain sentence and Retry-After. The clock is the test's.

let w: World;
let input: { cluster: string; parentId: string; allocations: { treeNodeId: string; ppm: number }[] };
beforeAll(async () => {
  w = await makeWorld("api_what_if_limit");
  const lang = await w.db.prisma.budgetTreeNode.findUniqueOrThrow({
    where: { path: "lab/language" },
    include: { children: { orderBy: { name: "asc" } } },
  });
  input = { cluster: "h100", parentId: lang.id, allocations: [{ treeNodeId: lang.children[0]!.id, ppm: 50_000 }] };
});
afterAll(async () => {
  await w?.db.drop();
});

function limited(perMinute: number) {
  let t = 5_000_000;
  const whatIfLimiter = createWhatIfLimiter({ perMinute }, () => t);
  return {
    whatIfLimiter,
    advance: (ms: number) => (t += ms),
    caller: (user: Actor) => createCaller({ prisma: w.db.prisma, user, whatIfLimiter }),
  };
}

describe("what-if previews", () => {
  it("are refused past the per-minute limit with when to try again, per person, until the minute has passed", async () => {
    const l = limited(2);
    const maya = l.caller(w.users.maya);
    await maya.budget.whatIf(input);
    l.advance(15_000);
    await maya.budget.whatIf(input);
    const refused = await maya.budget.whatIf(input).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: "You have run 2 what-if previews in the last minute, the most one person may; try again in 45 s.",
    });
    // The admin is another person: not held up by Maya's previews.
    expect((await l.caller(w.users.admin).budget.whatIf(input)).valid).toBe(true);
    l.advance(45_000);
    expect((await maya.budget.whatIf(input)).valid).toBe(true);
  });

  it("run one at a time per person: a second while the first runs is refused", async () => {
    const l = limited(10);
    const maya = l.caller(w.users.maya);
    const results = await Promise.allSettled([maya.budget.whatIf(input), maya.budget.whatIf(input)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: "TOO_MANY_REQUESTS", message: expect.stringContaining("still running") });
    // Finished, failed or not: the next one may start.
    expect((await maya.budget.whatIf(input)).valid).toBe(true);
  });

  it("answer 429 with Retry-After over HTTP", async () => {
    const l = limited(1);
    const call = () =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req: new Request(
          `http://127.0.0.1:3000/api/trpc/budget.whatIf?input=${encodeURIComponent(JSON.stringify(superjson.serialize(input)))}`,
        ),
        router: appRouter,
        createContext: () => ({ prisma: w.db.prisma, user: w.users.maya, whatIfLimiter: l.whatIfLimiter }),
        responseMeta: trpcResponseMeta,
      });
    expect((await call()).status).toBe(200);
    const res = await call();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(JSON.stringify(await res.json())).toContain("try again in 60 s");
  });

  it("count REST previews (POST /budgets/{path}/allocation/what-if) with the page's, one limit per person", async () => {
    const l = limited(2);
    const token = (await createApiToken(w.db.prisma, w.users.maya, { name: "what-if" })).token;
    const rest = () =>
      handleRest(
        new Request("http://127.0.0.1:3000/api/v1/budgets/lab/language/pretraining/allocation/what-if", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ cluster: "h100", share: 0.5 }),
        }),
        "/budgets/lab/language/pretraining/allocation/what-if",
        { prisma: w.db.prisma, whatIfLimiter: l.whatIfLimiter },
      );
    const ok = await rest();
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { preview: { path: string; share: number } }).preview).toMatchObject({
      path: "lab/language/pretraining",
      share: 0.5,
    });
    await l.caller(w.users.maya).budget.whatIf(input);
    const res = await rest();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await res.json()).toEqual({
      error: {
        code: "TOO_MANY_REQUESTS",
        message: "You have run 2 what-if previews in the last minute, the most one person may; try again in 60 s.",
      },
    });
  });
});
