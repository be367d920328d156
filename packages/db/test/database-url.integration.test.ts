import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { ensureDatabase, openDatabase } from "@tranche/db/setup";
import { startSecondServer, type SecondServer } from "./second-server";

describe("DATABASE_URL", () => {
  let server: SecondServer;
  const saved = process.env.DATABASE_URL;
  beforeAll(async () => {
    server = await startSecondServer();
    await ensureDatabase(server.url);
  }, 120_000);
  afterAll(async () => {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    await server?.stop();
  });

  it("points Tranche at another server, which is migrated and used instead of the embedded one", async () => {
    process.env.DATABASE_URL = server.url;
    const db = await openDatabase();
    expect(db.embedded).toBe(false);
    expect(db.url).toBe(server.url);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const applied = await client.query("SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL");
      expect(applied.rows.map((r) => r.migration_name)).toContain("20261130120000_init");
      const tables = await client.query("SELECT to_regclass('public.job') AS job, to_regclass('public.usage_ledger') AS ledger");
      expect(tables.rows[0]).toEqual({ job: "job", ledger: "usage_ledger" });
    } finally {
      await client.end();
    }
    await db.stop(); // an external server is not ours to stop
    const again = new pg.Client({ connectionString: server.url });
    await again.connect();
    await again.end();
  });

  it("that cannot be reached fails with one specific line naming host and port", async () => {
    process.env.DATABASE_URL = "postgresql://nobody:secret@127.0.0.1:1/tranche";
    await expect(openDatabase()).rejects.toThrow(/^Cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\): ECONNREFUSED/);
  });

  it("that is not a postgres URL is refused before any connection is tried", async () => {
    process.env.DATABASE_URL = "mysql://root@127.0.0.1/tranche";
    await expect(openDatabase()).rejects.toThrow("DATABASE_URL must start with postgresql://");
  });
});
