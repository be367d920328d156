import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client";

export type { PrismaClient };
/** Prisma's namespace: `Prisma.sql` composes a raw query from fragments. */
export { Prisma };
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/**
 * A Prisma client over node-postgres (the driver adapter keeps Prisma free of downloaded engines).
 * `statementTimeoutMs`: PostgreSQL cancels any statement of this client that runs longer, and the
 * driver gives up on an answer that takes 5 s more (a connection that went silent), so no query can
 * hold its caller for ever.
 */
export function createPrismaClient(url: string, opts: { max?: number; statementTimeoutMs?: number } = {}): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: url, max: opts.max ?? 10, ...statementTimeouts(opts.statementTimeoutMs) }),
  });
}

/** node-postgres' settings for a statement timeout (see createPrismaClient); none when undefined. */
export function statementTimeouts(ms: number | undefined): { statement_timeout?: number; query_timeout?: number } {
  return ms === undefined ? {} : { statement_timeout: ms, query_timeout: ms + 5000 };
}
