// `npm run admin` beside a running `npm start` on a port of its own: the admin copies the printed
// command without TRANCHE_PG_PORT. It must use that running server, never stop it as a leftover of a
// killed run (an outage of the whole platform) to start one of its own on the default port.
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { portIsFree, startEmbeddedPostgres, type EmbeddedServer } from "@tranche/db/setup";

const root = join(import.meta.dirname, "..", "..");

async function freePort(from: number): Promise<number> {
  for (let p = from; p < from + 200; p++) if (await portIsFree(p)) return p;
  throw new Error("no free port");
}

function admin(args: string[], env: NodeJS.ProcessEnv, stdin: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "admin.ts"), ...args], {
      cwd: root,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => resolve({ code, out }));
    child.stdin.end(stdin);
  });
}

describe("npm run admin beside npm start's embedded server on another port", () => {
  const dir = mkdtempSync(join(tmpdir(), "tranche-admin-port-"));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, "postgres");
  let server: EmbeddedServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates the admin on that running server and leaves it running", async () => {
    const port = await freePort(55700);
    server = await startEmbeddedPostgres({ dataDir, port, database: "tranche" });
    const pidBefore = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0];
    const elsewhere = await freePort(port + 1);
    const env: NodeJS.ProcessEnv = { ...process.env, TRANCHE_DATA_DIR: dataDir, TRANCHE_PG_PORT: String(elsewhere) };
    delete env.DATABASE_URL;

    const r = await admin(["create-admin", "--email", "first@lab.test", "--name", "First Admin"], env, "a-long-password\n");

    expect(r.out).toContain("Created the admin First Admin");
    expect(r.code).toBe(0);
    expect(server.alive()).toBe(true);
    expect(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]).toBe(pidBefore);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query<{ email: string }>(`SELECT email FROM "user"`);
    await client.end();
    expect(rows.map((u) => u.email)).toEqual(["first@lab.test"]);
  }, 180_000);
});
