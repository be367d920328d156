// Test harness for the runtime's integration tests: a small world in a fresh database, the agent
// protocol on a bare HTTP server (the web app's handlers without Next.js), and real worker and agent
// processes that every test stops.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { PrismaClient } from "@tranche/db";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { submitJob, type Actor } from "@tranche/domain";
import {
  acquireOrRenewLease,
  handleHeartbeat,
  hashSecret,
  issueEnrollmentTokens,
  serveAgentProtocol,
} from "@tranche/domain/runtime";
import type { SubmitJobInput } from "@tranche/contracts";

const ROOT = join(import.meta.dirname, "..", "..", "..");

export interface World {
  clusterId: string;
  nodeIds: Record<string, string>;
  actor: Actor;
  budgets: Record<string, string>;
}

/** Cluster "c1" with `nodes` nodes of 8 GPUs (c1-0 ..), budgets lab/a (60%) and lab/b (40%), one admin. */
export async function makeWorld(
  prisma: PrismaClient,
  opts: { nodes: number; state?: "READY" | "DOWN" } = { nodes: 1 },
): Promise<World> {
  const cluster = await prisma.cluster.create({ data: { name: "c1", gpuType: "FAKE" } });
  const nodeIds: Record<string, string> = {};
  for (let i = 0; i < opts.nodes; i++) {
    const n = await prisma.node.create({
      data: { clusterId: cluster.id, name: `c1-${i}`, gpuCount: 8, state: opts.state ?? "READY" },
    });
    nodeIds[n.name] = n.id;
  }
  const user = await prisma.user.create({ data: { email: "admin@test.example", name: "Test Admin", role: "ADMIN" } });
  const root = await prisma.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
  const a = await prisma.budgetTreeNode.create({ data: { name: "a", path: "lab/a", parentId: root.id } });
  const b = await prisma.budgetTreeNode.create({ data: { name: "b", path: "lab/b", parentId: root.id } });
  const at = new Date(Date.now() - 3600_000);
  for (const [id, ppm] of [
    [root.id, 1_000_000],
    [a.id, 600_000],
    [b.id, 400_000],
  ] as const) {
    await prisma.allocation.create({ data: { treeNodeId: id, clusterId: cluster.id, ppm } });
    await prisma.allocationChange.create({ data: { treeNodeId: id, clusterId: cluster.id, fromPpm: 0, toPpm: ppm, at } });
  }
  for (const budgetId of [a.id, b.id]) await prisma.budgetMember.create({ data: { budgetId, userId: user.id } });
  return {
    clusterId: cluster.id,
    nodeIds,
    actor: { id: user.id, email: user.email, name: user.name, role: "ADMIN" },
    budgets: { "lab/a": a.id, "lab/b": b.id },
  };
}

/** Eight fake GPUs as an agent reports them at enrolment and in a heartbeat. */
export const fakeGpus = () =>
  Array.from({ length: 8 }, (_, index) => ({ index, uuid: `GPU-${index}`, name: "Fake", memoryMiB: 1, utilizationPercent: 50 }));

/**
 * For tests that call the heartbeat handler in-process, racing the plan applier with no agent process:
 * a fresh database with two nodes whose agents hold the credential `cred-<name>`, the worker lease
 * taken as "test", and `beat`, one node's heartbeat at `at` (epoch seconds) reporting `jobs`.
 */
export interface HeartbeatScene {
  db: TestDatabase;
  world: World;
  beat: (name: string, at: number, jobs?: object[]) => ReturnType<typeof handleHeartbeat>;
}

/** A HeartbeatScene (for a beforeAll); the caller drops `db`. A start that fails drops it itself. */
export async function startHeartbeatScene(label: string): Promise<HeartbeatScene> {
  const db = await createTestDatabase(label);
  try {
    const world = await makeWorld(db.prisma, { nodes: 2 });
    for (const [name, id] of Object.entries(world.nodeIds))
      await db.prisma.node.update({ where: { id }, data: { agentCredentialHash: hashSecret(`cred-${name}`) } });
    expect(await acquireOrRenewLease(db.prisma, "test", 3600)).toBe(true);
    const beat = (name: string, at: number, jobs: object[] = []) =>
      handleHeartbeat(
        db.prisma,
        `cred-${name}`,
        {
          nodeName: name,
          agentVersion: "test",
          health: { healthy: true, errors: [] },
          gpus: fakeGpus(),
          busyPercent: 50,
          jobs,
          logs: [],
        },
        new Date(at * 1000),
      );
    return { db, world, beat };
  } catch (e) {
    await db.drop();
    throw e;
  }
}

export async function submit(
  prisma: PrismaClient,
  world: World,
  input: Partial<SubmitJobInput> & { command: string },
): Promise<number> {
  const job = await submitJob(prisma, world.actor, {
    cluster: "c1",
    budget: "lab/a",
    gpus: 8,
    minRuntime: 600,
    maxRuntime: null,
    resumable: false,
    priority: 0,
    env: {},
    gracePeriod: null,
    ...input,
  } as never);
  return job.id;
}

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A child process with its output kept for assertions and failure messages. */
export class Proc {
  output = "";
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    child.stdout?.on("data", (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (this.output += d.toString()));
    this.exited = new Promise((resolve) =>
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
        resolve();
      }),
    );
  }

  get pid(): number {
    return this.child.pid!;
  }

  async waitForOutput(text: string | RegExp, timeoutMs = 30_000): Promise<void> {
    await waitFor(
      `${this.name} to print ${String(text)}\n--- output so far ---\n${this.output.slice(-3000)}`,
      async () => (typeof text === "string" ? this.output.includes(text) : text.test(this.output)),
      timeoutMs,
      100,
    );
  }

  async stop(signal: NodeJS.Signals = "SIGTERM", timeoutMs = 10_000): Promise<void> {
    if (this.exit) return;
    this.child.kill(signal);
    const t = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    await this.exited;
    clearTimeout(t);
  }

  wait(): Promise<void> {
    return this.exited;
  }
}

const tsx = (script: string, args: string[], env: Record<string, string>, name: string): Proc =>
  new Proc(
    name,
    spawn(process.execPath, ["--import", "tsx", join(ROOT, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );

export function spawnWorker(databaseUrl: string, env: Record<string, string> = {}, name = "worker"): Proc {
  return tsx("apps/worker/src/main.ts", [], { DATABASE_URL: databaseUrl, TRANCHE_CYCLE_INTERVAL_MS: "500", ...env }, name);
}

export interface AgentSet {
  proc: Proc;
  dir: string;
  names: string[];
}

/** Issue enrollment tokens for `names` and start one agent process running them as fake nodes. */
export async function spawnAgents(
  prisma: PrismaClient,
  world: World,
  server: string,
  names: string[],
  dir?: string,
  extra: string[] = [],
): Promise<AgentSet> {
  const stateDir = dir ?? mkdtempSync(join(tmpdir(), "tranche-agent-"));
  const tokens = await issueEnrollmentTokens(prisma, world.clusterId, names);
  const file = join(stateDir, "tokens");
  writeFileSync(file, tokens.map((t) => `${t.nodeName} ${t.token}`).join("\n"));
  return startAgentProcess(server, stateDir, names, file, extra);
}

export function startAgentProcess(
  server: string,
  stateDir: string,
  names: string[],
  tokenFile: string | null,
  extra: string[] = [],
): AgentSet {
  const args = ["--server", server, "--state-dir", stateDir, "--fake-gpus", "8"];
  if (names.length === 1) args.push("--node-name", names[0]!);
  else args.push("--fake-nodes", String(names.length), "--name-prefix", names[0]!.replace(/\d+$/, ""));
  if (tokenFile) args.push("--enrollment-token-file", tokenFile);
  // CI runs as root: these fake-GPU agents may run their test jobs as root unless a test isolates them.
  if (process.getuid?.() === 0 && !extra.some((a) => a === "--job-uid-range" || a === "--job-user"))
    args.push("--allow-root-jobs");
  const proc = tsx(
    "apps/node-agent/src/main.ts",
    [...args, ...extra],
    { TRANCHE_AGENT_HEARTBEAT_SEC: "1" },
    `agent ${names.join(",")}`,
  );
  return { proc, dir: stateDir, names };
}

/**
 * Stop every agent, then remove their folders. Two sets may share a folder (a host that lost its state
 * gets a fresh agent in the same one), and removing it under a running agent failed the cleanup and left
 * that agent running.
 */
export async function stopAgentSets(sets: AgentSet[]): Promise<void> {
  for (const a of sets) await a.proc.stop();
  for (const a of sets) cleanupAgentDir(a);
}

/** Kill the process groups of jobs an agent left behind (after a SIGKILLed agent) and remove its folder. */
export function cleanupAgentDir(set: AgentSet): void {
  for (const name of set.names) {
    const state = join(set.dir, name, "state.json");
    if (!existsSync(state)) continue;
    try {
      const s = JSON.parse(readFileSync(state, "utf8")) as { jobs: { pid: number | null; status: string }[] };
      for (const j of s.jobs) {
        if (j.pid && j.status === "RUNNING") {
          try {
            process.kill(-j.pid, "SIGKILL");
          } catch {
            // gone
          }
        }
      }
    } catch {
      // unreadable
    }
  }
  rmSync(set.dir, { recursive: true, force: true });
}

export async function startGateway(prisma: PrismaClient) {
  process.env.TRANCHE_AGENT_HEARTBEAT_SEC = "1";
  return serveAgentProtocol(prisma, 0);
}

/** The runtime's stack for one test file: a fresh database and world, the agent gateway, agents and a leading worker. */
export interface Stack {
  db: TestDatabase;
  world: World;
  gateway: Awaited<ReturnType<typeof startGateway>>;
  worker: Proc;
  /** One per agent process, in the order asked for. */
  agents: AgentSet[];
  /** Stops the worker, then the agents (and any job they left), the gateway; drops the database. */
  stop(): Promise<void>;
}

/**
 * Starts a Stack: `nodes` nodes (makeWorld), then `agents` (one process per entry, each with its own
 * state folder; default one process for every node) with `agentArgs`, then a worker with `workerEnv`,
 * waiting until it leads and (with `waitForAgents`) until every agent has reported. `beforeProcesses`
 * runs on the world before anything starts. A start that fails stops what it had started.
 */
export async function startStack(
  label: string,
  opts: {
    nodes: number;
    agents?: string[][];
    agentArgs?: string[];
    workerEnv?: Record<string, string>;
    waitForAgents?: boolean;
    beforeProcesses?: (db: TestDatabase, world: World) => Promise<void>;
  },
): Promise<Stack> {
  const db = await createTestDatabase(label);
  const started: Partial<Omit<Stack, "db" | "stop">> & { agents: AgentSet[] } = { agents: [] };
  const stop = async (): Promise<void> => {
    await started.worker?.stop();
    await stopAgentSets(started.agents);
    await started.gateway?.close();
    await db.drop();
  };
  try {
    const world = await makeWorld(db.prisma, { nodes: opts.nodes });
    started.world = world;
    await opts.beforeProcesses?.(db, world);
    started.gateway = await startGateway(db.prisma);
    const groups = opts.agents ?? [Object.keys(world.nodeIds)];
    for (const names of groups)
      started.agents.push(await spawnAgents(db.prisma, world, started.gateway.url, names, undefined, opts.agentArgs ?? []));
    started.worker = spawnWorker(db.url, opts.workerEnv ?? {});
    await started.worker.waitForOutput("is now the leader");
    if (opts.waitForAgents) {
      const all = groups.reduce((n, g) => n + g.length, 0);
      await waitFor(
        "every agent to report",
        async () => (await db.prisma.node.count({ where: { lastHeartbeatAt: { not: null } } })) === all,
      );
    }
    return { db, world, gateway: started.gateway, worker: started.worker, agents: started.agents, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export { ROOT };
