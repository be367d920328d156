import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createPrismaClient, type PrismaClient } from "@tranche/db";
import { databaseUrl } from "@tranche/db/testing";
import { appRouter } from "../src";
import { goodJob, makeWorld, type World } from "./fixtures";

// tRPC errors as the web app's /api/trpc route sends them: plain words, one sentence per field for
// bad input, and never the database's own message.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_trpc_errors");
});
afterAll(async () => {
  await w?.db.drop();
});

async function trpc(prisma: PrismaClient, path: string, input: unknown, mutation = true) {
  const url = new URL(`http://127.0.0.1:3000/api/trpc/${path}`);
  if (!mutation) url.searchParams.set("input", JSON.stringify({ json: input }));
  const req = new Request(url, {
    method: mutation ? "POST" : "GET",
    headers: { "content-type": "application/json" },
    ...(mutation ? { body: JSON.stringify({ json: input }) } : {}),
  });
  const res = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ prisma, user: w.users.ada }),
    onError: () => undefined,
  });
  const text = await res.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions walk arbitrary JSON
  return { status: res.status, text, error: (JSON.parse(text) as any).error?.json };
}

describe("tRPC error messages", () => {
  it("bad input: the message is one sentence per field in words, not zod's JSON", async () => {
    const r = await trpc(w.db.prisma, "job.submit", { ...goodJob, gpus: 0, command: "", colour: "red" });
    expect(r.status).toBe(400);
    expect(r.error.message).toBe(
      "The number of GPUs must be at least 1; command is required; colour: unknown field 'colour' in a job submission (fields: cluster, budget, gpus, minRuntime, maxRuntime, resumable, priority, requeue, gracePeriod, command, env, secretEnv, name, idempotencyKey, array, after, retries, nodes, excludeNodes)",
    );
    expect(r.error.data.zodIssues.map((i: { path: string }) => i.path)).toEqual(["gpus", "command", "colour"]);
  });

  it("a NUL byte or an id past int32 is a 400, not a database error", async () => {
    const nul = await trpc(w.db.prisma, "job.submit", { ...goodJob, name: "a\u0000b" });
    expect(nul.status).toBe(400);
    expect(nul.error.message).toBe("name must not contain NUL characters (\\u0000)");
    const big = await trpc(w.db.prisma, "job.get", { id: 2 ** 40 }, false);
    expect(big.status).toBe(400);
    expect(big.error.message).toBe("id: job id must be at most 2,147,483,647");
    const after = await trpc(w.db.prisma, "job.logs", { id: 1, after: "9".repeat(30) }, false);
    expect(after.status).toBe(400);
    expect(after.error.message).toBe(
      "after must be a log cursor (the 'next' or 'older' value of an earlier page), e.g. 0 for the start",
    );
  });

  it("a database failure answers a plain sentence; the Prisma message stays in the server log", async () => {
    // A real client whose database does not exist: every query fails inside Prisma.
    const broken = createPrismaClient(databaseUrl("tranche_no_such_database"), { max: 1 });
    const quiet = console.error;
    console.error = () => undefined;
    try {
      const r = await trpc(broken, "job.list", { scope: "mine" }, false);
      expect(r.status).toBe(500);
      expect(r.error.message).toBe("Something went wrong on the server; nothing was changed.");
      expect(r.text).not.toMatch(/prisma|database|tranche_no_such|invocation|stack/i);
    } finally {
      console.error = quiet;
      await broken.$disconnect();
    }
  });
});
