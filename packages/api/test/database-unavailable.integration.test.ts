import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { afterAll, describe, expect, it } from "vitest";
import { seedDemoWorld } from "@tranche/db/setup";
import { startOwnPostgres, type OwnPostgres } from "@tranche/db/testing";
import { createApiToken, type Actor } from "@tranche/domain";
import { agentReplyHeaders, handleAgentRequest } from "@tranche/domain/runtime";
import { appRouter, trpcResponseMeta } from "../src/index";
import { handleRest } from "../src/rest/handler";
import { goodJob } from "./fixtures";

// This test owns its PostgreSQL server: it stops it under the routes and starts it again.
describe("the routes while the database is away", () => {
  let pg: OwnPostgres | null = null;

  afterAll(async () => {
    await pg?.dispose();
  });

  it("answer 503 with Retry-After and plain words (REST batch and list, tRPC, the agent protocol), and work again once it is back", async () => {
    pg = await startOwnPostgres("db-away");
    const prisma = pg.prisma;
    await seedDemoWorld(prisma);
    const ada = await prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } });
    const actor: Actor = { id: ada.id, email: ada.email, name: ada.name, role: "RESEARCHER" };
    const { token } = await createApiToken(prisma, actor, { name: "test" });
    const db = prisma;
    const rest = (method: string, path: string, body?: unknown) =>
      handleRest(
        new Request(`http://127.0.0.1:3000/api/v1${path}`, {
          method,
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
        path,
        { prisma: db },
      );
    const batch = (name: string) => rest("POST", "/jobs/batch", { jobs: [{ ...goodJob, name }] });
    const trpc = () =>
      fetchRequestHandler({
        endpoint: "/api/trpc",
        req: new Request("http://127.0.0.1:3000/api/trpc/job.list"),
        router: appRouter,
        createContext: () => ({ prisma: db, user: actor, origin: "http://127.0.0.1:3000" }),
        responseMeta: trpcResponseMeta,
      });
    const agent = () =>
      handleAgentRequest(db, {
        method: "POST",
        route: "heartbeat",
        authorization: "Bearer some-node-credential",
        readBody: async () => "{}",
      });

    expect((await batch("before")).status).toBe(201);

    await pg.stop();
    const away = await batch("while away");
    expect(away.status).toBe(503);
    expect(away.headers.get("retry-after")).toBe("5");
    const body = (await away.json()) as { error: { code: string; message: string } };
    expect(body.error).toEqual({
      code: "UNAVAILABLE",
      message: "The database cannot answer right now (it may be restarting or too busy); try again in 5 s.",
    });
    expect((await rest("GET", "/jobs")).status).toBe(503);
    const t = await trpc();
    expect(t.status).toBe(503);
    expect(t.headers.get("retry-after")).toBe("5");
    expect(JSON.stringify(await t.json())).toContain("The database cannot answer right now");
    const a = await agent();
    expect(a.status).toBe(503);
    expect(agentReplyHeaders(a)["retry-after"]).toBe("5");
    expect((a.body as { error: { code: string } }).error.code).toBe("UNAVAILABLE");

    await pg.start();
    let back = await batch("after");
    for (let i = 0; i < 20 && back.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 500));
      back = await batch("after");
    }
    expect(back.status).toBe(201);
    expect(await db.job.count({ where: { name: { in: ["before", "while away", "after"] } } })).toBe(2);
  }, 120_000);
});
