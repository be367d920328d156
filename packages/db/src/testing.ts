// Test databases: integration tests get a fresh, migrated database each, cloned from a template that
// the global setup (scripts/test-db-setup.ts) migrated once. Cloning takes ~100 ms; migrating ~2 s.
import pg from "pg";
import { createPrismaClient, type PrismaClient } from "./client";

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
