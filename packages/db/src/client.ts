import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client";

export type { PrismaClient };
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];

/** A Prisma client over node-postgres (the driver adapter keeps Prisma free of downloaded engines). */
export function createPrismaClient(url: string, opts: { max?: number } = {}): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: opts.max ?? 10 }) });
}
