import { PrismaPg } from "@prisma/adapter-pg";
import { Prisma, PrismaClient } from "./generated/client";

export type { PrismaClient };
/** Prisma's namespace: `Prisma.sql` composes a raw query from fragments. */
export { Prisma };
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** A Prisma client over node-postgres (the driver adapter keeps Prisma free of downloaded engines). */
export function createPrismaClient(url: string, opts: { max?: number } = {}): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: opts.max ?? 10 }) });
}
