import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, isDatabaseUnavailable, type PrismaClient } from "@tranche/db";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";

// A busy database as Prisma reports it, against a real server: an interactive transaction that outlives
// its timeout, and one that finds no connection within maxWait. Both are rolled back, so callers answer
// 503 "try again" (errors.ts), never "Something went wrong on the server".
describe("an interactive transaction's timeouts", () => {
  let db: TestDatabase;
  let one: PrismaClient;
  beforeAll(async () => {
    db = await createTestDatabase("transaction_timeout");
    one = createPrismaClient(db.url, { max: 1 });
  });
  afterAll(async () => {
    await one?.$disconnect();
    await db?.drop();
  });

  const caught = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: unknown) => e,
    );

  it("are the database unavailable for the moment, and the client works again after", async () => {
    const expired = await caught(
      one.$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_sleep(0.5)) s`;
          return tx.$queryRaw`SELECT 1 AS v`;
        },
        { timeout: 100 },
      ),
    );
    expect(isDatabaseUnavailable(expired), String(expired)).toBe(true);

    // The only connection held by a long transaction: the next cannot start within its maxWait.
    const holder = one.$transaction(async (tx) => tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_sleep(1)) s`, { timeout: 5_000 });
    const noStart = await caught(one.$transaction(async (tx) => tx.$queryRaw`SELECT 1 AS v`, { maxWait: 50 }));
    await holder;
    expect(isDatabaseUnavailable(noStart), String(noStart)).toBe(true);
    expect(await one.$queryRaw<{ v: number }[]>`SELECT 1 AS v`).toEqual([{ v: 1 }]);
  });
});
