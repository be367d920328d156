// A throwaway database for a benchmark: on BENCH_DATABASE_URL's server when set, else on an embedded
// PostgreSQL 17 started on a free port in .data/<dataDirName> (removed when closed).
import { rmSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import pg from "pg";
import { ensureDatabase, repoRoot, startEmbeddedPostgres } from "@tranche/db/setup";

export interface BenchDatabase {
  url: string;
  /** Drops the database (unless `keep`) and stops the embedded server, if one was started. */
  close(opts?: { keep?: boolean }): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** Creates database `name` (not yet migrated: some benchmarks time the migration). */
export async function openBenchDatabase(name: string, dataDirName: string): Promise<BenchDatabase> {
  let serverUrl = process.env.BENCH_DATABASE_URL;
  let stopServer = async () => {};
  if (!serverUrl) {
    const dataDir = join(repoRoot(), ".data", dataDirName);
    const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), database: "postgres" });
    serverUrl = server.url;
    stopServer = async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  await ensureDatabase(url);
  return {
    url,
    close: async (opts) => {
      if (!opts?.keep) {
        const admin = new pg.Client({ connectionString: serverUrl });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        await admin.end();
      }
      await stopServer();
    },
  };
}
