import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { portIsFree, startEmbeddedPostgres, type EmbeddedServer } from "@tranche/db/setup";

async function freePort(from: number): Promise<number> {
  for (let p = from; p < from + 200; p++) if (await portIsFree(p)) return p;
  throw new Error("no free port");
}

const canConnect = async (port: number, password: string): Promise<boolean> => {
  const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password, database: "postgres" });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
};

// The embedded server's password is random and kept only in a mode-600 file (a job, running as another
// user, cannot read it); a data folder made with the old fixed password is moved to a random one.
describe("the embedded PostgreSQL's password", () => {
  const dir = mkdtempSync(join(tmpdir(), "tranche-pgpw-"));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, "data");
  let server: EmbeddedServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is random, kept in <dataDir>.password with mode 600, and a folder on the old fixed password gets a new one", async () => {
    const port = await freePort(55600);
    server = await startEmbeddedPostgres({ dataDir, port, database: "postgres" });
    const file = `${dataDir}.password`;
    const first = readFileSync(file, "utf8").trim();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(decodeURIComponent(new URL(server.url).password)).toBe(first);
    expect(await canConnect(port, first)).toBe(true);
    expect(await canConnect(port, "tranche")).toBe(false);

    // Make it a folder of an older Tranche: the fixed password and no password file.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query("ALTER ROLE postgres WITH PASSWORD 'tranche'");
    await client.end();
    await server.stop();
    rmSync(file);

    const logs: string[] = [];
    server = await startEmbeddedPostgres({ dataDir, port, database: "postgres", log: (l) => logs.push(l) });
    const second = readFileSync(file, "utf8").trim();
    expect(second).not.toBe(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logs.join("\n")).toContain("now has a random password");
    expect(await canConnect(port, "tranche")).toBe(false);
    expect(await canConnect(port, second)).toBe(true);
    // Listening on loopback only.
    const settings = new pg.Client({ connectionString: server.url });
    await settings.connect();
    const { rows } = await settings.query<{ listen_addresses: string }>("SHOW listen_addresses");
    await settings.end();
    expect(rows[0]!.listen_addresses).toBe("127.0.0.1");
  }, 120_000);
});
