import pg from "pg";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { embeddedDatabaseUrl, startEmbeddedPostgres } from "./embedded-postgres";
import { ConfigError } from "./errors";
import { migrateDeploy } from "./migrate";
import { repoRoot } from "./repo-root";

export interface Database {
  url: string;
  /** true when this process started an embedded server it must stop */
  embedded: boolean;
  stop(): Promise<void>;
  /**
   * Embedded server only: check every 2 s that it still runs and start it again when it died (the
   * services reconnect by themselves), saying so in one line each time. Answers a function that ends
   * the watch: a shutdown calls it first, as Ctrl-C signals the whole process group, Postgres too,
   * and a watch still running would start it again only to stop it (seconds added to every stop).
   * Once ended (or once stop() began), a restart in flight is waited for silently and never retried.
   */
  keepAlive?(say: (line: string) => void): () => void;
}

export const DEFAULT_EMBEDDED_PORT = 54329;

/**
 * The database Tranche runs on: `DATABASE_URL` when set (checked reachable), else an embedded
 * PostgreSQL 17 in `<repo>/.data/postgres` that persists across runs. Migrations are applied either way.
 */
export async function openDatabase(opts: { log?: (l: string) => void; migrate?: boolean } = {}): Promise<Database> {
  const log = opts.log ?? (() => {});
  let db: Database;
  const external = process.env.DATABASE_URL;
  if (external) {
    await assertReachable(external);
    db = { url: external, embedded: false, stop: async () => {} };
  } else {
    const port = Number(process.env.TRANCHE_PG_PORT ?? DEFAULT_EMBEDDED_PORT);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new ConfigError(`TRANCHE_PG_PORT must be a port number, got '${process.env.TRANCHE_PG_PORT}'.`);
    }
    const options = {
      dataDir: embeddedDataDir(),
      port,
      database: "tranche",
      log,
    };
    let server = await startEmbeddedPostgres(options);
    let timer: NodeJS.Timeout | null = null;
    /** A restart in flight: stop() waits for it, so the server it starts is the one stopped. */
    let restart: Promise<void> | null = null;
    // Once a stop began, a restart in flight is only waited for: its failure (often the stop's own
    // signal reaching the starting server) is no news, and nothing will try again.
    let ended = false;
    const endWatch = () => {
      ended = true;
      if (timer) clearInterval(timer);
      timer = null;
    };
    db = {
      url: server.url,
      embedded: true,
      stop: async () => {
        endWatch();
        await restart;
        await server.stop();
      },
      keepAlive: (say) => {
        if (ended) return endWatch;
        timer = setInterval(() => {
          if (ended || restart || server.alive()) return;
          say("• PostgreSQL stopped unexpectedly; starting it again (the services wait and reconnect)");
          restart = startEmbeddedPostgres(options)
            .then((s) => {
              server = s;
              if (!ended) say("• PostgreSQL is running again");
            })
            .catch((e: unknown) => {
              if (!ended) say(`• PostgreSQL did not start again (${(e as Error).message}); retrying in 2 s`);
            })
            .finally(() => (restart = null));
        }, 2000);
        timer.unref();
        return endWatch;
      },
    };
  }
  if (opts.migrate !== false) {
    try {
      await migrateDeploy(db.url);
    } catch (e) {
      await db.stop();
      throw e;
    }
  }
  return db;
}

/** Fail with one specific line when a configured server cannot be reached. */
export async function assertReachable(url: string, timeoutMs = 5000): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL (expected postgresql://user:password@host:port/db).`);
  }
  if (!/^postgres(ql)?:$/.test(parsed.protocol)) {
    throw new ConfigError(`DATABASE_URL must start with postgresql://, got '${parsed.protocol}//'.`);
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const where = `${parsed.hostname}:${parsed.port || 5432}`;
    throw new ConfigError(
      `Cannot reach the database at ${where} (DATABASE_URL): ${err.code ?? ""} ${err.message}`.replace(/\s+/g, " ").trim(),
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** The embedded server's data folder (TRANCHE_DATA_DIR, else .data/postgres in the checkout). */
export function embeddedDataDir(): string {
  return process.env.TRANCHE_DATA_DIR ?? join(repoRoot(), ".data", "postgres");
}

/**
 * The URL of an embedded server already running on the data folder (npm start's), with the password kept
 * beside it; null when that folder has no password file yet. The port is the one the running server
 * wrote to its postmaster.pid, so a command that was not given npm start's TRANCHE_PG_PORT still finds
 * it, rather than stopping it as a leftover to start its own on `port`.
 */
export function runningEmbeddedUrl(port: number): string | null {
  const dataDir = embeddedDataDir();
  const file = `${dataDir}.password`;
  if (!existsSync(file)) return null;
  return embeddedDatabaseUrl(servingPort(dataDir) ?? port, readFileSync(file, "utf8").trim());
}

/** The port in the data folder's postmaster.pid (its fourth line), or null when there is none. */
function servingPort(dataDir: string): number | null {
  try {
    const port = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[3]);
    return Number.isInteger(port) && port > 0 && port <= 65535 ? port : null;
  } catch {
    return null;
  }
}
