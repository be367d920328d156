import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "@tranche/db";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";

describe("a client's statement timeout", () => {
  let db: TestDatabase;
  let bounded: PrismaClient;
  beforeAll(async () => {
    db = await createTestDatabase("statement_timeout");
    bounded = createPrismaClient(db.url, { max: 1, statementTimeoutMs: 300 });
  });
  afterAll(async () => {
    await bounded?.$disconnect();
    await db?.drop();
  });

  it("cancels a statement that runs longer, and leaves the client usable", async () => {
    await expect(bounded.$queryRaw`SELECT pg_sleep(2)`).rejects.toThrow(/statement timeout/);
    expect(await bounded.$queryRaw<{ v: number }[]>`SELECT 1 AS v`).toEqual([{ v: 1 }]);
    // A client without one (the default) waits as long as the statement takes.
    expect(await db.prisma.$queryRaw<{ statement_timeout: string }[]>`SHOW statement_timeout`).toEqual([
      { statement_timeout: "0" },
    ]);
  });
});
