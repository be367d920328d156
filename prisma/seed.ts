// `npx prisma db seed` equivalent: seeds the demo world into an empty database.
import { createPrismaClient } from "@tranche/db";
import { isSeeded, seedDemoWorld } from "@tranche/db/setup";

const prisma = createPrismaClient(process.env.DATABASE_URL!);
if (await isSeeded(prisma)) console.log("already seeded");
else await seedDemoWorld(prisma);
await prisma.$disconnect();
