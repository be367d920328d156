// `tranche logs -f`: the real CLI process following a job that a real node agent process runs and a real
// worker process schedules, through the REST handler served over HTTP, on a real Postgres. The job prints
// 100,000 lines, more than an agent uploads in one heartbeat, so its log is still arriving after it ended.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { createApiToken, submitJob, type Actor } from "@tranche/domain";
import { issueEnrollmentTokens, serveAgentProtocol } from "@tranche/domain/runtime";
import { CLI_BIN, cliEnv } from "./cli-stack";
import { serveRest, type World } from "./fixtures";

const ROOT = resolve(import.meta.dirname, "../../..");
const LINES = 100_000;

const processes: ChildProcess[] = [];
function run(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  processes.push(child);
  return child;
}

describe("tranche logs -f", () => {
  let db: TestDatabase;
  let actor: Actor;
  let gateway: Awaited<ReturnType<typeof serveAgentProtocol>>;
  let rest: Awaited<ReturnType<typeof serveRest>>;
  const stateDir = mkdtempSync(join(tmpdir(), "tranche-logs-agent-"));

  beforeAll(async () => {
    db = await createTestDatabase("cli_logs_follow");
    const cluster = await db.prisma.cluster.create({ data: { name: "c1", gpuType: "FAKE" } });
    await db.prisma.node.create({ data: { clusterId: cluster.id, name: "c1-0", gpuCount: 8, state: "READY" } });
    const user = await db.prisma.user.create({ data: { email: "admin@test.example", name: "Test Admin", role: "ADMIN" } });
    actor = { id: user.id, email: user.email, name: user.name, role: "ADMIN" };
    const root = await db.prisma.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
    const a = await db.prisma.budgetTreeNode.create({ data: { name: "a", path: "lab/a", parentId: root.id } });
    const at = new Date(Date.now() - 3600_000);
    for (const id of [root.id, a.id]) {
      await db.prisma.allocation.create({ data: { treeNodeId: id, clusterId: cluster.id, ppm: 1_000_000 } });
      await db.prisma.allocationChange.create({
        data: { treeNodeId: id, clusterId: cluster.id, fromPpm: 0, toPpm: 1_000_000, at },
      });
    }
    await db.prisma.budgetMember.create({ data: { budgetId: a.id, userId: user.id } });

    process.env.TRANCHE_AGENT_HEARTBEAT_SEC = "1";
    gateway = await serveAgentProtocol(db.prisma, 0);
    const [token] = await issueEnrollmentTokens(db.prisma, cluster.id, ["c1-0"]);
    const agentArgs = ["--server", gateway.url, "--state-dir", stateDir, "--node-name", "c1-0", "--fake-gpus", "8"];
    if (process.getuid?.() === 0) agentArgs.push("--allow-root-jobs");
    run("apps/node-agent/src/main.ts", [...agentArgs, "--enrollment-token", token!.token], { TRANCHE_AGENT_HEARTBEAT_SEC: "1" });
    run("apps/worker/src/main.ts", [], { DATABASE_URL: db.url, TRANCHE_CYCLE_INTERVAL_MS: "500" });
    rest = await serveRest({ db } as World);
  });

  afterAll(async () => {
    for (const p of processes.reverse()) {
      if (p.exitCode !== null || p.signalCode !== null) continue;
      p.kill("SIGTERM");
      await new Promise((ok) => {
        const t = setTimeout(() => p.kill("SIGKILL"), 10_000);
        p.once("exit", () => ok(clearTimeout(t)));
      });
    }
    await rest?.close();
    await gateway?.close();
    await db?.drop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Submits `command` as the test's one user and follows it with the real CLI to its end. */
  async function followed(command: string): Promise<{ id: number; code: number | null; out: string; err: string }> {
    const job = await submitJob(db.prisma, actor, {
      cluster: "c1",
      budget: "lab/a",
      gpus: 1,
      minRuntime: 600,
      maxRuntime: null,
      resumable: false,
      priority: 0,
      env: {},
      gracePeriod: null,
      command,
    } as never);
    const token = (await createApiToken(db.prisma, actor, { name: `cli ${job.id}` })).token;
    const cli = spawn(process.execPath, [CLI_BIN, "logs", "-f", String(job.id)], {
      env: cliEnv(rest.url, token, "/nonexistent/tranche.json"),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    cli.stdout.on("data", (d: Buffer) => (out += d.toString()));
    cli.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((ok) => cli.on("exit", ok));
    return { id: job.id, code, out, err };
  }

  it("follows a job that prints 100,000 lines to its last line, and stops once the job has ended and its output is all in", async () => {
    const { id, code, out, err } = await followed(`sleep 2; seq 1 ${LINES}`);
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines.length).toBe(LINES + 1);
    expect(lines.at(-2)).toBe(String(LINES));
    expect(out).toBe(Array.from({ length: LINES }, (_, i) => `${i + 1}\n`).join(""));
    expect((await db.prisma.job.findUniqueOrThrow({ where: { id } })).state).toBe("COMPLETED");
  }, 180_000);

  it("says how a followed job ended when it did not complete, and where its error output is, and exits with its exit code", async () => {
    const { id, code, out, err } = await followed("echo half way; echo no such file >&2; exit 3");
    expect(code).toBe(3);
    expect(out).toBe("half way\n");
    expect(err).toBe(`tranche: job ${id} failed (exit code 3); its error output: tranche logs --stderr ${id}\n`);
  }, 120_000);
});
