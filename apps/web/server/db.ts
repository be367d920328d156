import "server-only";
import { createPrismaClient, type PrismaClient } from "@tranche/db";

// One client per server process; Next's dev reload re-evaluates modules, so keep it on globalThis.
const g = globalThis as unknown as { trancheDb?: PrismaClient; trancheAgentDb?: PrismaClient };

export function db(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the web app through `npm start`.");
  return (g.trancheDb ??= createPrismaClient(url));
}

/**
 * The node agents' own client and pool (enrollment, heartbeats, the long-poll's check). People's
 * requests cannot take its connections: when a researcher's reads held the shared pool, heartbeats
 * waited for a connection past the agents' timeout and every node stopped its jobs (a security audit).
 */
export function agentDb(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the web app through `npm start`.");
  return (g.trancheAgentDb ??= createPrismaClient(url, { max: 5 }));
}
