import { hashPassword } from "better-auth/crypto";
import type { PrismaClient } from "../client";

// The demo world `npm start` seeds on first run: a lab of 3 divisions and 15 team budgets, ~150 users,
// an 88-GPU B200 cluster (11 nodes) and a 256-GPU H100 cluster (32 nodes). Deterministic, so e2e tests
// and screenshots can rely on names.

export const DEMO_PASSWORD = "tranche-demo";

export const DEMO_LOGINS = [
  {
    email: "ada@tranche.example",
    name: "Ada Researcher",
    role: "RESEARCHER",
    note: "researcher in lab/language/pretraining and lab/language/evaluation",
  },
  { email: "maya@tranche.example", name: "Maya Manager", role: "MANAGER", note: "manages lab/language" },
  { email: "victor@tranche.example", name: "Victor Manager", role: "MANAGER", note: "manages lab/vision" },
  { email: "omar@tranche.example", name: "Omar Operator", role: "OPERATOR", note: "cordons, drains and repairs nodes" },
  { email: "admin@tranche.example", name: "Alex Admin", role: "ADMIN", note: "everything" },
] as const;

export const DEMO_CLUSTERS = [
  { name: "b200", gpuType: "B200", nodes: 11, gpusPerNode: 8 },
  { name: "h100", gpuType: "H100", nodes: 32, gpusPerNode: 8 },
] as const;

// division -> [team, allocation on b200 (ppm of division), allocation on h100 (ppm of division)]
export const DEMO_TREE: Record<string, { ppm: Record<string, number>; teams: [string, number, number][] }> = {
  language: {
    ppm: { b200: 450_000, h100: 450_000 },
    teams: [
      ["pretraining", 350_000, 400_000],
      ["post-training", 250_000, 200_000],
      ["evaluation", 150_000, 150_000],
      ["multilingual", 100_000, 150_000],
      ["safety", 150_000, 100_000],
    ],
  },
  vision: {
    ppm: { b200: 300_000, h100: 300_000 },
    teams: [
      ["perception", 250_000, 300_000],
      ["generative", 350_000, 300_000],
      ["video", 250_000, 250_000],
      ["3d", 150_000, 150_000],
    ],
  },
  science: {
    ppm: { b200: 200_000, h100: 200_000 },
    teams: [
      ["climate", 200_000, 150_000],
      ["biology", 200_000, 200_000],
      ["materials", 150_000, 150_000],
      ["robotics", 250_000, 300_000],
      ["theory", 100_000, 100_000],
      ["infra", 100_000, 100_000],
    ],
  },
};

const FIRST = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jun", "Kofi", "Lea", "Mei", "Nia", "Oren"];
const LAST = ["Abe", "Brooks", "Costa", "Diaz", "Eze", "Fink", "Gupta", "Ho", "Ito", "Jain"];

export async function isSeeded(prisma: PrismaClient): Promise<boolean> {
  return (await prisma.cluster.count()) > 0;
}

/** Seed the demo world into an empty database, in one transaction. */
export async function seedDemoWorld(prisma: PrismaClient, at: Date = new Date()): Promise<void> {
  // One hash (own salt) per demo login; scrypt costs ~0.1 s each, so they run in parallel. The generated
  // researchers have no password: they exist to own workload jobs, not to sign in.
  const hashes = await Promise.all(DEMO_LOGINS.map(() => hashPassword(DEMO_PASSWORD)));
  await prisma.$transaction(
    async (tx) => {
      const clusters = new Map<string, string>();
      for (const c of DEMO_CLUSTERS) {
        const cluster = await tx.cluster.create({ data: { name: c.name, gpuType: c.gpuType } });
        clusters.set(c.name, cluster.id);
        await tx.node.createMany({
          data: Array.from({ length: c.nodes }, (_, i) => ({
            clusterId: cluster.id,
            name: `${c.name}-${i}`,
            gpuCount: c.gpusPerNode,
            state: "READY" as const,
            stateReason: "seeded",
          })),
        });
      }

      const users = new Map<string, string>();
      for (const u of DEMO_LOGINS) {
        const user = await tx.user.create({ data: { email: u.email, name: u.name, role: u.role, emailVerified: true } });
        users.set(u.email, user.id);
      }
      const researchers: string[] = [];
      for (let i = 0; i < 145; i++) {
        const first = FIRST[i % FIRST.length]!;
        const last = LAST[Math.floor(i / FIRST.length) % LAST.length]!;
        const email = `${first}.${last}${i >= FIRST.length * LAST.length ? i : ""}@tranche.example`.toLowerCase();
        researchers.push(email);
        users.set(email, "");
      }
      const created = await tx.user.createManyAndReturn({
        data: researchers.map((email, i) => ({
          email,
          name: email
            .split("@")[0]!
            .split(".")
            .map((s) => s[0]!.toUpperCase() + s.slice(1))
            .join(" "),
          role: "RESEARCHER" as const,
          emailVerified: true,
          createdAt: new Date(at.getTime() - i * 1000),
        })),
      });
      for (const u of created) users.set(u.email, u.id);
      await tx.account.createMany({
        data: DEMO_LOGINS.map((u, i) => {
          const userId = users.get(u.email)!;
          return { userId, accountId: userId, providerId: "credential", password: hashes[i]!, createdAt: at };
        }),
      });

      const admin = users.get("admin@tranche.example")!;
      const root = await tx.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
      const allocate = async (treeNodeId: string, perCluster: Record<string, number>) => {
        for (const [cluster, ppm] of Object.entries(perCluster)) {
          const clusterId = clusters.get(cluster)!;
          await tx.allocation.create({ data: { treeNodeId, clusterId, ppm } });
          await tx.allocationChange.create({
            data: { treeNodeId, clusterId, fromPpm: 0, toPpm: ppm, at, actorId: admin, note: "initial allocation" },
          });
        }
      };
      await allocate(root.id, { b200: 1_000_000, h100: 1_000_000 });

      let r = 0;
      for (const [division, spec] of Object.entries(DEMO_TREE)) {
        const div = await tx.budgetTreeNode.create({ data: { name: division, path: `lab/${division}`, parentId: root.id } });
        await allocate(div.id, spec.ppm);
        for (const [team, b200, h100] of spec.teams) {
          const budget = await tx.budgetTreeNode.create({
            data: { name: team, path: `lab/${division}/${team}`, parentId: div.id },
          });
          await allocate(budget.id, { b200, h100 });
          // ~10 researchers per team; every researcher is in one team, some in two.
          const members = researchers.slice(r, r + 10);
          r += 10;
          if (r >= researchers.length) r = 0;
          const extra = researchers[(r * 7 + 3) % researchers.length]!;
          await tx.budgetMember.createMany({
            data: [...new Set([...members, extra])].map((email) => ({ budgetId: budget.id, userId: users.get(email)! })),
          });
        }
      }

      const byPath = new Map((await tx.budgetTreeNode.findMany()).map((n) => [n.path, n.id]));
      const ada = users.get("ada@tranche.example")!;
      await tx.budgetMember.createMany({
        data: ["lab/language/pretraining", "lab/language/evaluation"].map((p) => ({ budgetId: byPath.get(p)!, userId: ada })),
      });
      await tx.budgetManager.createMany({
        data: [
          { treeNodeId: byPath.get("lab/language")!, userId: users.get("maya@tranche.example")! },
          { treeNodeId: byPath.get("lab/vision")!, userId: users.get("victor@tranche.example")! },
          { treeNodeId: root.id, userId: admin },
        ],
      });
      await tx.auditLog.create({
        data: {
          actorId: admin,
          action: "seed.demo-world",
          targetType: "system",
          targetId: "demo",
          details: { users: users.size },
        },
      });
    },
    { timeout: 60_000 },
  );
}
