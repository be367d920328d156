// `tranche logs -f`: the real CLI process following a job run by a real agent and worker, through the
// REST handler served over HTTP, on a real Postgres. The job prints 100,000 lines, more than the agent
// uploads in one heartbeat, so the log is still arriving after the job has ended.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { createApiToken } from "@tranche/domain";
import { handleRest } from "@tranche/api/rest";
import {
  ROOT,
  cleanupAgentDir,
  makeWorld,
  spawnAgents,
  spawnWorker,
  startGateway,
  submit,
  waitFor,
  type AgentSet,
  type Proc,
  type World,
} from "./harness";

const LINES = 100_000;

describe("tranche logs -f", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let worker: Proc;
  let agents: AgentSet;
  let rest: http.Server;
  let url: string;
  let token: string;

  beforeAll(async () => {
    db = await createTestDatabase("logs_follow");
    world = await makeWorld(db.prisma, { nodes: 1 });
    gateway = await startGateway(db.prisma);
    agents = await spawnAgents(db.prisma, world, gateway.url, ["c1-0"]);
    worker = spawnWorker(db.url);
    await worker.waitForOutput("is now the leader");
    token = (await createApiToken(db.prisma, world.actor, { name: "cli" })).token;
    rest = http.createServer(async (req, res) => {
      const r = await handleRest(
        new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string> }),
        req.url!.replace(/^\/api\/v1/, "").split("?")[0]!,
        { prisma: db.prisma },
      );
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
      res.end(await r.text());
    });
    await new Promise<void>((ok) => rest.listen(0, "127.0.0.1", ok));
    url = `http://127.0.0.1:${(rest.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((ok) => rest?.close(ok));
    await worker?.stop();
    await agents?.proc.stop();
    if (agents) cleanupAgentDir(agents);
    await gateway?.close();
    await db?.drop();
  });

  it("follows a job that prints 100,000 lines to its last line, and stops once the job has ended and its output is all in", async () => {
    const id = await submit(db.prisma, world, { gpus: 1, minRuntime: 600, command: `sleep 2; seq 1 ${LINES}` });
    const cli = spawn(process.execPath, [join(ROOT, "apps/cli/bin/tranche.mjs"), "logs", "-f", String(id)], {
      env: { ...process.env, TRANCHE_URL: url, TRANCHE_TOKEN: token, TRANCHE_CONFIG: "/nonexistent/tranche.json" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    cli.stdout.on("data", (d: Buffer) => (out += d.toString()));
    cli.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => cli.on("exit", resolve));
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines.length).toBe(LINES + 1);
    expect(lines.at(-2)).toBe(String(LINES));
    expect(out).toBe(Array.from({ length: LINES }, (_, i) => `${i + 1}\n`).join(""));
    // The job ended before its output was all uploaded: the follower waited for the rest.
    const job = await waitFor("the job to have ended", async () => {
      const j = await db.prisma.job.findUniqueOrThrow({ where: { id } });
      return j.finishedAt ? j : null;
    });
    expect(job.state).toBe("COMPLETED");
  }, 180_000);
});
