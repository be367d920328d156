import "server-only";
import { createPrismaClient, type PrismaClient } from "@tranche/db";

// One client per server process; Next's dev reload re-evaluates modules, so keep it on globalThis.
const g = globalThis as unknown as { trancheDb?: PrismaClient };

export function db(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the web app through `npm start`.");
  return (g.trancheDb ??= createPrismaClient(url));
}
