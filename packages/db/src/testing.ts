// Test databases: integration tests get a fresh, migrated database each, cloned from a template that
// the global setup (scripts/test-db-setup.ts) migrated once. Cloning takes ~100 ms; migrating ~2 s.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import pg from "pg";
import { createPrismaClient, type PrismaClient } from "./client";
import { startEmbeddedPostgres, type EmbeddedServer } from "./embedded-postgres";
import { migrateDeploy } from "./migrate";
import { copyOwnTemplate, ensureOwnTemplate, ownTemplateDir } from "./own-postgres-template";

export { removeOwnTemplate } from "./own-postgres-template";
import { repoRoot } from "./repo-root";

export const TEMPLATE_DB = "tranche_template";

export interface TestDatabase {
  url: string;
  name: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = process.env.TRANCHE_TEST_SERVER_URL;
  if (!url) throw new Error("TRANCHE_TEST_SERVER_URL is not set: run integration tests through vitest's integration project.");
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(serverUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

let counter = 0;

/** A new empty-but-migrated database; `drop()` removes it (call it in afterAll). */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const name = `test_${label.replace(/[^a-z0-9]/gi, "_").toLowerCase()}_${process.pid}_${Date.now()}_${counter++}`;
  const admin = new pg.Client({ connectionString: databaseUrl("postgres") });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(name);
  const prisma = createPrismaClient(url, { max: 5 });
  return {
    url,
    name,
    prisma,
    async drop() {
      await prisma.$disconnect();
      const c = new pg.Client({ connectionString: databaseUrl("postgres") });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A PostgreSQL server one test owns, on a free port with its own data folder and a migrated `tranche`
 * database, so it can stop the server under the code it tests and start it again (an outage, a
 * restart); the shared test server cannot be stopped. `dispose()` (afterAll) stops it and removes the folder
 * and the `<dataDir>.password` file the server made beside it.
 */
export interface OwnPostgres {
  url: string;
  prisma: PrismaClient;
  /** Stops the server; the data stays for start(). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /**
   * Sends `sig` to the server's every process (postmaster and backends): SIGKILL is a crash with no
   * goodbye to any client, SIGSTOP a server gone silent (a frozen host, one dropped from the network),
   * which answers nothing and closes nothing until SIGCONT.
   */
  signal(sig: NodeJS.Signals): void;
  dispose(): Promise<void>;
}

export async function startOwnPostgres(label: string): Promise<OwnPostgres> {
  const dataDir = join(repoRoot(), ".data", `test-${label}-${process.pid}`);
  // A password file that was there before is someone else's: dispose() leaves it.
  const passwordFile = `${dataDir}.password`;
  const ownsPasswordFile = !existsSync(passwordFile);
  // A copy of the run's migrated template, unless the folder must take a password given before.
  const template = ownsPasswordFile ? ownTemplateDir() : null;
  if (template) {
    await ensureOwnTemplate(template, makeOwnTemplate);
    copyOwnTemplate(template, dataDir);
  }
  const port = await freePort();
  const up = () => startEmbeddedPostgres({ dataDir, port, database: "tranche" });
  let server: EmbeddedServer | null = await up();
  let prisma: PrismaClient | null = null;
  const own: OwnPostgres = {
    url: server.url,
    get prisma(): PrismaClient {
      if (!prisma) throw new Error("the test's own database is not migrated yet");
      return prisma;
    },
    async stop() {
      await server?.stop();
      server = null;
    },
    async start() {
      server = await up();
    },
    signal(sig) {
      for (const pid of serverProcesses(dataDir)) {
        try {
          process.kill(pid, sig);
        } catch {
          // gone already
        }
      }
    },
    async dispose() {
      await prisma?.$disconnect();
      await server?.stop();
      server = null;
      rmSync(dataDir, { recursive: true, force: true });
      if (ownsPasswordFile) rmSync(passwordFile, { force: true });
    },
  };
  try {
    if (!template) await migrateDeploy(server.url);
    prisma = createPrismaClient(server.url, { max: 4 });
    return own;
  } catch (e) {
    await own.dispose();
    throw e;
  }
}

/**
 * Starts making the run's template (the integration setup, at once, so that it is ready before the
 * integration files start); resolves when it is made. Its lock is taken before this returns.
 */
export function prepareOwnTemplate(dir: string): Promise<void> {
  return ensureOwnTemplate(dir, makeOwnTemplate);
}

/** A data folder with a migrated `tranche` database, its server stopped. */
async function makeOwnTemplate(dataDir: string): Promise<void> {
  const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: "tranche" });
  try {
    await migrateDeploy(server.url);
  } finally {
    await server.stop();
  }
}

/** The postmaster of the server in `dataDir` and its children (none when it is not running). */
function serverProcesses(dataDir: string): number[] {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  } catch {
    return [];
  }
  const children = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}
