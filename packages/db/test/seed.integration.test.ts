import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_LOGINS, isSeeded, seedDemoWorld } from "@tranche/db/setup";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";

describe("the demo world seed", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("seed");
    await seedDemoWorld(db.prisma, new Date("2026-11-01T00:00:00Z"));
  });
  afterAll(async () => {
    await db.drop();
  });

  it("creates an 88-GPU B200 cluster of 11 nodes and a 256-GPU H100 cluster of 32 nodes", async () => {
    const clusters = await db.prisma.cluster.findMany({ include: { nodes: true }, orderBy: { name: "asc" } });
    expect(clusters.map((c) => [c.name, c.nodes.length, c.nodes.reduce((s, n) => s + n.gpuCount, 0)])).toEqual([
      ["b200", 11, 88],
      ["h100", 32, 256],
    ]);
  });

  it("creates a lab tree of 3 divisions and 15 team budgets whose siblings never exceed 100%", async () => {
    const nodes = await db.prisma.budgetTreeNode.findMany({ include: { children: true, allocations: true } });
    const root = nodes.find((n) => n.parentId === null)!;
    expect(root.children).toHaveLength(3);
    expect(nodes.filter((n) => n.children.length === 0)).toHaveLength(15);
    for (const parent of nodes) {
      const kids = nodes.filter((n) => n.parentId === parent.id);
      for (const clusterId of new Set(kids.flatMap((k) => k.allocations.map((a) => a.clusterId)))) {
        const sum = kids.reduce((s, k) => s + (k.allocations.find((a) => a.clusterId === clusterId)?.ppm ?? 0), 0);
        expect(sum).toBeLessThanOrEqual(1_000_000);
      }
    }
  });

  it("creates about 150 users including every demo login, each with an allocation history entry per allocation", async () => {
    expect(await db.prisma.user.count()).toBe(150);
    for (const login of DEMO_LOGINS) {
      const user = await db.prisma.user.findUnique({ where: { email: login.email } });
      expect(user?.role).toBe(login.role);
    }
    expect(await db.prisma.allocationChange.count()).toBe(await db.prisma.allocation.count());
  });

  it("is detected as already seeded so a second start does not seed twice", async () => {
    expect(await isSeeded(db.prisma)).toBe(true);
  });
});
