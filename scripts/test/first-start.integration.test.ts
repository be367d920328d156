import { spawnSync } from "node:child_process";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPrismaClient, type PrismaClient } from "@tranche/db";
import { DEMO_PASSWORD } from "@tranche/db/setup";
import { createTestDatabase, databaseUrl } from "@tranche/db/testing";
import { demoMode, prepareDatabase } from "../platform/first-start";

// The web app's own sign-in (better-auth with its Prisma adapter), called in-process: `server-only`
// guards Next.js bundles and is meaningless here.
vi.mock("server-only", () => ({}));

const root = join(import.meta.dirname, "..", "..");
const DEMO_ADMIN = "admin@tranche.example";

/** A database with nothing in it, not even the schema (a lab's fresh server). */
async function createEmptyDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `first_start_${label}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: databaseUrl("postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  return {
    url: databaseUrl(name),
    drop: async () => {
      const c = new pg.Client({ connectionString: databaseUrl("postgres") });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

function runMigrate(url: string, args: string[] = []) {
  return spawnSync(process.execPath, ["--import", "tsx", join(root, "scripts", "migrate.ts"), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    encoding: "utf8",
    timeout: 60_000,
  });
}

async function counts(prisma: PrismaClient) {
  const [users, accounts, clusters, treeNodes] = await Promise.all([
    prisma.user.count(),
    prisma.account.count(),
    prisma.cluster.count(),
    prisma.budgetTreeNode.count(),
  ]);
  return { users, accounts, clusters, treeNodes };
}

describe("compose's migrate service on an empty database", () => {
  let db: { url: string; drop: () => Promise<void> };
  let prisma: PrismaClient;
  beforeAll(async () => {
    db = await createEmptyDatabase("migrate");
    prisma = createPrismaClient(db.url, { max: 1 });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await db.drop();
  });

  it("refuses the old --seed flag with a line saying what replaced it, and writes nothing", async () => {
    const r = runMigrate(db.url, ["--seed"]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(
      "tranche: migrate.ts no longer takes --seed: it seeds nothing (create the first administrator with npm run admin -- create-admin --email E --name N); --demo seeds the demo world.",
    );
    const tables = await prisma.$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'public'`;
    expect(Number(tables[0]!.n)).toBe(0);
  });

  it("applies the schema and seeds nothing: no user, no cluster, no tree", async () => {
    const r = runMigrate(db.url);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("migrations applied");
    expect(r.stdout).toContain("No user exists yet. Create the first administrator: npm run admin -- create-admin");
    expect(await counts(prisma)).toEqual({ users: 0, accounts: 0, clusters: 0, treeNodes: 0 });
  });
});

describe("a start with TRANCHE_DEMO=0 on an empty database", () => {
  let db: { url: string; drop: () => Promise<void> };
  let prisma: PrismaClient;
  let signIn: (email: string, password: string) => Promise<"signed in" | number>;
  beforeAll(async () => {
    db = await createEmptyDatabase("lab");
    expect(runMigrate(db.url).status).toBe(0);
    prisma = createPrismaClient(db.url, { max: 1 });
    vi.stubEnv("DATABASE_URL", db.url);
    vi.stubEnv("BETTER_AUTH_SECRET", "first-start-test-secret-0123456789abcdef");
    vi.stubEnv("TRANCHE_AUTH_RATE_LIMIT", "off");
    const { auth } = await import("../../apps/web/server/auth");
    signIn = async (email, password) => {
      try {
        await auth().api.signInEmail({ body: { email, password } });
        return "signed in";
      } catch (e) {
        return (e as { statusCode?: number }).statusCode ?? -1;
      }
    };
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await prisma.$disconnect();
    await db.drop();
  });

  it("seeds nothing, so no one can sign in with the demo's published password", async () => {
    const state = await prepareDatabase(db.url, demoMode("0"));
    expect(state).toEqual({ seededDemo: false, users: 0, demoLoginsPresent: false, demoWorldPresent: false });
    expect(await counts(prisma)).toEqual({ users: 0, accounts: 0, clusters: 0, treeNodes: 0 });
    expect(await signIn(DEMO_ADMIN, DEMO_PASSWORD)).toBe(401);
  });

  it("starting it again in demo mode would seed it (the check above can fail)", async () => {
    const state = await prepareDatabase(db.url, demoMode("1"));
    expect(state.seededDemo).toBe(true);
    expect(await signIn(DEMO_ADMIN, DEMO_PASSWORD)).toBe("signed in");
  });

  it("a demo start does not seed over a database that already has an account", async () => {
    const other = await createTestDatabase("first_admin");
    try {
      await other.prisma.user.create({ data: { email: "first@lab.example", name: "First Admin", role: "ADMIN" } });
      const state = await prepareDatabase(other.url, true);
      expect(state).toMatchObject({ seededDemo: false, users: 1, demoLoginsPresent: false });
      expect((await counts(other.prisma)).clusters).toBe(0);
    } finally {
      await other.drop();
    }
  });

  it("takes TRANCHE_DEMO as 0 or 1 and names anything else", () => {
    expect(demoMode(undefined)).toBe(true);
    expect(demoMode("1")).toBe(true);
    expect(demoMode("0")).toBe(false);
    expect(() => demoMode("no")).toThrow("TRANCHE_DEMO must be 0 (your own lab) or 1 (the demo), got 'no'.");
  });
});
