import { afterAll, describe, expect, it } from "vitest";
import { startOwnPostgres, type OwnPostgres } from "@tranche/db/testing";
import {
  cleanupAgentDir,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
} from "./harness";

// This test owns its PostgreSQL server (it restarts it), separate from the shared test server.
describe("a Postgres restart", () => {
  let pg: OwnPostgres | null = null;
  let gateway: Awaited<ReturnType<typeof startGateway>> | null = null;
  let worker: Proc | null = null;
  let agents: AgentSet | null = null;

  afterAll(async () => {
    await worker?.stop();
    await agents?.proc.stop();
    if (agents) cleanupAgentDir(agents);
    await gateway?.close();
    await pg?.dispose();
  });

  it("the worker and the agent endpoints reconnect by themselves and scheduling resumes", async () => {
    pg = await startOwnPostgres("pg-restart");
    const prisma = pg.prisma;
    const world = await makeWorld(prisma, { nodes: 1 });
    gateway = await startGateway(prisma);
    agents = await spawnAgents(prisma, world, gateway.url, ["c1-0"]);
    worker = spawnWorker(pg.url, { TRANCHE_LEASE_TTL_SEC: "4" });
    await worker.waitForOutput("is now the leader");
    const first = await submit(prisma, world, { gpus: 1, command: "echo before" });
    await waitFor(
      "the first job to complete",
      async () => (await prisma.job.findUniqueOrThrow({ where: { id: first } })).state === "COMPLETED",
    );

    await pg.stop();
    await worker.waitForOutput(/database error/, 15_000);
    await agents.proc.waitForOutput(/HTTP 50[03]|cannot reach|refused|unavailable/, 15_000);
    await pg.start();

    const second = await waitFor(
      "a submission to succeed again",
      () => submit(prisma!, world, { gpus: 1, command: "echo after" }),
      20_000,
      500,
    );
    await waitFor(
      "the second job to complete",
      async () => (await prisma.job.findUniqueOrThrow({ where: { id: second } })).state === "COMPLETED",
      30_000,
    );
    await worker.waitForOutput("database reachable again");
    expect(worker.exit).toBeNull();
    expect(agents.proc.exit).toBeNull();
    const logs = (await prisma.jobLogChunk.findMany({ where: { jobId: second } })).map((c) => c.text).join("");
    expect(logs).toBe("after\n");
  }, 90_000);
});
