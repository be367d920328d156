import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaCli } from "@tranche/db/setup";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";

describe("the committed migrations", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("drift");
  });
  afterAll(async () => {
    await db.drop();
  });

  it("produce exactly the schema in prisma/schema.prisma (no drift)", async () => {
    const { code, output } = await prismaCli(
      [
        "migrate",
        "diff",
        "--from-migrations",
        "prisma/migrations",
        "--to-schema-datamodel",
        "prisma/schema.prisma",
        "--exit-code",
      ],
      db.url,
    );
    // --exit-code: 0 = no difference, 2 = difference, 1 = error.
    expect(output).toContain("No difference detected");
    expect(code).toBe(0);
  });

  it("are all applied to a migrated database", async () => {
    const { code, output } = await prismaCli(["migrate", "status"], db.url);
    expect(output).toContain("Database schema is up to date");
    expect(code).toBe(0);
  });
});
