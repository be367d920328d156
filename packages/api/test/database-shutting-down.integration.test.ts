// PostgreSQL while it shuts down: the connections it has go on, new ones are refused with 57P03 ("the
// database system is shutting down"). The agents' long-poll opens a connection of its own (its LISTEN,
// ended by the stop) through node-postgres, whose refusal carries that code but none of Prisma's marks,
// and it answered 500 INTERNAL: agents logged an internal error for their last requests of every stop.
// A smart shutdown (SIGTERM to the postmaster) stays in that state while one client is connected, so the
// test holds one and asks during it.
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@tranche/db";
import { seedDemoWorld } from "@tranche/db/setup";
import { startOwnPostgres, type OwnPostgres } from "@tranche/db/testing";
import { createApiToken, type Actor } from "@tranche/domain";
import { handleAgentRequest, issueNodeCredential, serveAgentProtocol } from "@tranche/domain/runtime";
import { handleRest } from "../src/rest/handler";

let own: OwnPostgres | null = null;
let gateway: Awaited<ReturnType<typeof serveAgentProtocol>> | null = null;
let fresh: PrismaClient | null = null;

afterAll(async () => {
  await gateway?.close();
  await fresh?.$disconnect();
  await own?.dispose();
});

/** The postmaster of the server `client` is connected to: its backend's parent. */
async function postmasterOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  const stat = readFileSync(`/proc/${rows[0]!.pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Resolves once a new connection is refused as "shutting down" (a deadline, not a timing). */
async function untilRefusingNewConnections(url: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    const code = await c.connect().then(
      () => null,
      (e: { code?: string }) => e.code ?? "no code",
    );
    await c.end().catch(() => undefined);
    if (code === "57P03") return;
    if (Date.now() > deadline) throw new Error(`new connections were not refused as shutting down (last: ${code})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the routes while PostgreSQL shuts down", () => {
  it("answer 503 with Retry-After, not 500 (the agents' long-poll and heartbeat, a user's REST call), and work once it is back", async () => {
    own = await startOwnPostgres("h7-shutting-down");
    await seedDemoWorld(own.prisma);
    const node = await own.prisma.node.findFirstOrThrow({ orderBy: { name: "asc" } });
    const credential = await issueNodeCredential(own.prisma, node.id);
    const ada = await own.prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } });
    const actor: Actor = { id: ada.id, email: ada.email, name: ada.name, role: "RESEARCHER" };
    const { token } = await createApiToken(own.prisma, actor, { name: "test" });
    gateway = await serveAgentProtocol(own.prisma, 0, "127.0.0.1", { databaseUrl: own.url });
    // A client with no connection yet: each of its requests needs a new one, as after a stop ended the old.
    fresh = createPrismaClient(own.url, { max: 2 });
    const db = fresh;

    const wait = () =>
      fetch(`${gateway!.url}/api/agent/v1/wait`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
        body: JSON.stringify({ nodeName: node.name, assignments: "none yet", timeoutSec: 1 }),
      });
    const heartbeat = () =>
      handleAgentRequest(db, {
        method: "POST",
        route: "heartbeat",
        authorization: `Bearer ${credential}`,
        readBody: async () =>
          JSON.stringify({
            nodeName: node.name,
            agentVersion: "test",
            health: { healthy: true },
            gpus: [],
            busyPercent: null,
            jobs: [],
          }),
      });
    const jobs = () =>
      handleRest(new Request("http://127.0.0.1:3000/api/v1/jobs", { headers: { authorization: `Bearer ${token}` } }), "/jobs", {
        prisma: db,
      });

    const holder = new pg.Client({ connectionString: own.url });
    await holder.connect();
    process.kill(await postmasterOf(holder), "SIGTERM");
    await untilRefusingNewConnections(own.url);

    const w = await wait();
    expect(w.status).toBe(503);
    expect(w.headers.get("retry-after")).toBe("5");
    expect(((await w.json()) as { error: { code: string } }).error.code).toBe("UNAVAILABLE");
    const h = await heartbeat();
    expect(h.status).toBe(503);
    expect((h.body as { error: { code: string } }).error.code).toBe("UNAVAILABLE");
    const r = await jobs();
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");

    // The last client leaves, the server stops; started again, the same requests work.
    await holder.end();
    await own.stop();
    await own.start();
    let again = await wait();
    for (let i = 0; i < 20 && again.status === 503; i++) {
      await new Promise((res) => setTimeout(res, 500));
      again = await wait();
    }
    expect(again.status).toBe(200);
    expect((await heartbeat()).status).toBe(200);
    expect((await jobs()).status).toBe(200);
  }, 120_000);
});
