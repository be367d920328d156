// A real node agent process killed and started again under the same version (a crash, an OOM kill) leaves
// a line in its node's history: the agent makes a new start id at each start, and the server tells the
// restart by it. Before, only another version or a re-enrollment did.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { getNodeNamed } from "@tranche/domain";
import { issueEnrollmentTokens, serveAgentProtocol } from "@tranche/domain/runtime";

const ROOT = resolve(import.meta.dirname, "../../..");

let db: TestDatabase;
let gateway: Awaited<ReturnType<typeof serveAgentProtocol>>;
const stateDir = mkdtempSync(join(tmpdir(), "tranche-restart-agent-"));
let agent: ChildProcess | null = null;

/** Starts the agent process for node r-0; the enrollment token only the first time (its credential is kept). */
function startAgent(token?: string): ChildProcess {
  const args = ["--server", gateway.url, "--state-dir", stateDir, "--node-name", "r-0", "--fake-gpus", "2"];
  if (process.getuid?.() === 0) args.push("--allow-root-jobs");
  if (token) args.push("--enrollment-token", token);
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "apps/node-agent/src/main.ts"), ...args], {
    cwd: ROOT,
    env: { ...process.env, TRANCHE_AGENT_HEARTBEAT_SEC: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.resume();
  child.stderr!.resume();
  return child;
}

async function stopAgent(signal: NodeJS.Signals): Promise<void> {
  const p = agent;
  agent = null;
  if (!p || p.exitCode !== null || p.signalCode !== null) return;
  await new Promise((ok) => {
    p.once("exit", ok);
    p.kill(signal);
  });
}

/** The start id the node's agent last reported, once it is not `other` (a deadline, not a timing). */
async function startIdOtherThan(other: string | null): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const node = await db.prisma.node.findUnique({ where: { name: "r-0" }, select: { agentStartId: true } });
    if (node?.agentStartId && node.agentStartId !== other) return node.agentStartId;
    if (Date.now() > deadline) throw new Error(`the agent reported no start id other than ${other} within a minute`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  db = await createTestDatabase("agent_restart");
  await db.prisma.cluster.create({ data: { name: "c1", gpuType: "FAKE" } });
  gateway = await serveAgentProtocol(db.prisma, 0);
});

afterAll(async () => {
  await stopAgent("SIGKILL");
  await gateway?.close();
  await db?.drop();
  rmSync(stateDir, { recursive: true, force: true });
});

describe("an agent process restarted under the same version", () => {
  it("leaves a line in its node's history", async () => {
    const cluster = await db.prisma.cluster.findFirstOrThrow();
    const [token] = await issueEnrollmentTokens(db.prisma, cluster.id, ["r-0"]);
    agent = startAgent(token!.token);
    const first = await startIdOtherThan(null);
    const before = (await getNodeNamed(db.prisma, "r-0")).events.map((e) => e.reason);
    expect(before).toEqual(["First healthy heartbeat after enrollment: READY."]);

    // Killed as the kernel's OOM killer does, then started again by its service manager.
    await stopAgent("SIGKILL");
    agent = startAgent();
    await startIdOtherThan(first);
    const { agentVersion } = await db.prisma.node.findUniqueOrThrow({ where: { name: "r-0" } });
    const after = (await getNodeNamed(db.prisma, "r-0")).events.map((e) => e.reason);
    expect(after).toEqual([`Agent restarted (version ${agentVersion}).`, ...before]);
  });
});
