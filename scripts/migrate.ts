// Apply committed migrations to DATABASE_URL (the compose deployment's one-shot `migrate` service);
// with --seed, also seed the demo world into an empty database.
import { ConfigError, createPrismaClient } from "@tranche/db";
import { isSeeded, openDatabase, seedDemoWorld } from "@tranche/db/setup";

try {
  if (!process.env.DATABASE_URL) throw new ConfigError("DATABASE_URL is not set.");
  const db = await openDatabase();
  console.log("migrations applied");
  if (process.argv.includes("--seed")) {
    const prisma = createPrismaClient(db.url, { max: 2 });
    if (await isSeeded(prisma)) console.log("already seeded");
    else {
      await seedDemoWorld(prisma);
      console.log("demo world seeded");
    }
    await prisma.$disconnect();
  }
  await db.stop();
} catch (e) {
  console.error(e instanceof ConfigError ? `tranche: ${e.message}` : e);
  process.exit(1);
}
