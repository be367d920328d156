import { join } from "node:path";
import { demoJobUsers } from "./demo-job-users";
import { waitForHttp } from "./wait-for-http";
import { createPrismaClient } from "@tranche/db";
import { DEMO_CLUSTERS, repoRoot } from "@tranche/db/setup";
import { currentLeader, prepareDemoAgents } from "@tranche/domain/runtime";
import { demoMode } from "./first-start";
import { SCHEDULER_V8_FLAGS } from "./v8-flags";

export interface ServiceContext {
  databaseUrl: string;
  webUrl: string;
  webHost: string;
  webPort: number;
  /** Run the demo's fake node agents and workload (default: TRANCHE_DEMO). */
  demo?: boolean;
  /** Credentials and job folders of the demo's agents (default .data/agents; the e2e stack has its own). */
  agentsDir?: string;
}

export interface Service {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string>;
  /** resolves when the service is ready; rejects with a one-line reason */
  ready?: () => Promise<void>;
  /**
   * Routine output (enrolments, job starts and exits of 43 fake nodes) is not printed, so the start
   * banner and the logins stay the last thing on screen; lines that report a problem still are.
   */
  quiet?: boolean;
}

/**
 * Every long-running process of the platform, in start order (stopped in reverse):
 *   web        Next.js: UI, tRPC, REST /api/v1, the agent protocol /api/agent/v1, /metrics
 *   agents-*   one fake node agent process per demo cluster (every demo node, 8 fake GPUs each); ready
 *              once they heartbeat. Their credentials live in .data/agents; enrollment tokens for nodes
 *              without one are issued when the web app is ready.
 *   worker     the scheduler loop (leader lease, cycles, plan application)
 *   workload   the demo workload generator, submitting through the REST API
 * TRANCHE_DEMO=0 runs only the web app and the worker (no fake agents, no generated workload).
 */
export function services(ctx: ServiceContext): Service[] {
  const root = repoRoot();
  // `node --import tsx` (not the tsx CLI, which would sit between us and the process) so a service
  // can tell when the supervisor is gone and stop with it.
  const tsx = (script: string) => ["--import", "tsx", join(root, script)];
  const agentsDir = ctx.agentsDir ?? join(root, ".data", "agents");
  const demo = ctx.demo ?? demoMode();
  // The address users open (behind a reverse proxy, its https URL) when set; the local one otherwise. The
  // agents and the workload below are given the local one, which they reach.
  const publicUrl = process.env.TRANCHE_PUBLIC_URL ?? process.env.BETTER_AUTH_URL ?? ctx.webUrl;
  const env = { DATABASE_URL: ctx.databaseUrl, TRANCHE_PUBLIC_URL: publicUrl };
  const list: Service[] = [
    {
      name: "web",
      command: process.execPath,
      args: [
        join(root, "node_modules", "next", "dist", "bin", "next"),
        "start",
        join(root, "apps", "web"),
        "-H",
        ctx.webHost,
        "-p",
        String(ctx.webPort),
      ],
      env,
      ready: async () => {
        await waitForHttp(`${ctx.webUrl}/api/health`, 60_000);
        if (demo) await withPrisma(ctx.databaseUrl, (prisma) => prepareDemoAgents(prisma, agentsDir));
      },
    },
  ];
  if (demo) {
    const jobUsers = demoJobUsers(agentsDir);
    if (jobUsers.warning) console.log(`• ${jobUsers.warning}`);
    for (const c of DEMO_CLUSTERS) {
      list.push({
        name: `agents-${c.name}`,
        command: process.execPath,
        args: [
          ...tsx("apps/node-agent/src/main.ts"),
          "--server",
          ctx.webUrl,
          "--state-dir",
          agentsDir,
          "--fake-gpus",
          String(c.gpusPerNode),
          "--fake-nodes",
          String(c.nodes),
          "--name-prefix",
          `${c.name}-`,
          "--enrollment-token-file",
          join(agentsDir, `${c.name}.tokens`),
          "--stop-jobs-on-exit",
          // Fake nodes run on this host: the web app reaches their interactive sessions here.
          "--session-host",
          "127.0.0.1",
          // As root, each demo user's jobs run as a uid of their own (demo-job-users.ts); otherwise as
          // whoever runs `npm start`.
          ...jobUsers.args,
        ],
        env: { TRANCHE_PUBLIC_URL: ctx.webUrl },
        quiet: true,
        ready: () => waitForHeartbeats(ctx.databaseUrl, `${c.name}-`, c.nodes, 60_000),
      });
    }
  }
  list.push({
    name: "worker",
    command: process.execPath,
    args: [...SCHEDULER_V8_FLAGS, ...tsx("apps/worker/src/main.ts")],
    env: { ...env, TRANCHE_WORKER_ID: `worker-${process.pid}`, TRANCHE_EXIT_WITH_PARENT: "1" },
    ready: () => waitForLeader(ctx.databaseUrl, 30_000),
  });
  if (demo) {
    list.push({
      name: "workload",
      command: process.execPath,
      args: [...tsx("apps/worker/src/demo-workload.ts"), "--server", ctx.webUrl],
      env,
      quiet: true,
    });
  }
  return list;
}

async function withPrisma<T>(url: string, fn: (prisma: ReturnType<typeof createPrismaClient>) => Promise<T>): Promise<T> {
  const prisma = createPrismaClient(url, { max: 1 });
  try {
    return await fn(prisma);
  } finally {
    await prisma.$disconnect();
  }
}

async function poll(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Ready once every node named `prefix*` has sent a heartbeat since this start. */
function waitForHeartbeats(url: string, prefix: string, count: number, timeoutMs: number): Promise<void> {
  const since = new Date();
  return withPrisma(url, (prisma) =>
    poll(
      `the ${count} ${prefix}* agents did not all heartbeat`,
      timeoutMs,
      async () =>
        (await prisma.node.count({ where: { name: { startsWith: prefix }, lastHeartbeatAt: { gte: since } } })) >= count,
    ),
  );
}

/** Ready once a worker holds the scheduler lease. */
function waitForLeader(url: string, timeoutMs: number): Promise<void> {
  return withPrisma(url, (prisma) =>
    poll("no worker became the scheduler leader", timeoutMs, async () => (await currentLeader(prisma)) !== null),
  );
}
