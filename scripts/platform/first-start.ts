// What a start puts into the database besides the schema. The demo world (with its published password)
// is seeded only in demo mode and only into an empty database; a lab's own start seeds nothing, so no
// account exists until an operator creates the first administrator.
import { ConfigError, createPrismaClient } from "@tranche/db";
import { DEMO_CLUSTERS, DEMO_LOGINS, DEMO_PASSWORD, seedDemoWorld } from "@tranche/db/setup";

export const CREATE_ADMIN_COMMAND = "npm run admin -- create-admin --email E --name N";

/** TRANCHE_DEMO: "1" (the default of `npm start`) runs the demo; "0" a lab's own deployment. */
export function demoMode(value: string | undefined = process.env.TRANCHE_DEMO): boolean {
  if (value === undefined || value === "" || value === "1") return true;
  if (value === "0") return false;
  throw new ConfigError(`TRANCHE_DEMO must be 0 (your own lab) or 1 (the demo), got '${value}'.`);
}

export interface FirstStart {
  seededDemo: boolean;
  users: number;
  /** The demo's published logins exist in this database (seeded by an earlier demo start). */
  demoLoginsPresent: boolean;
  /** The demo's clusters exist, so its fake node agents and workload have somewhere to run. */
  demoWorldPresent: boolean;
}

/**
 * Seed the demo world when `demo` and the database is empty (no cluster and no user: a database where
 * an administrator was already created is a lab's own, even in demo mode). Reports what it found.
 */
export async function prepareDatabase(url: string, demo: boolean): Promise<FirstStart> {
  const prisma = createPrismaClient(url, { max: 2 });
  try {
    const [clusters, users] = await Promise.all([prisma.cluster.count(), prisma.user.count()]);
    let seededDemo = false;
    if (demo && clusters === 0 && users === 0) {
      await seedDemoWorld(prisma);
      seededDemo = true;
    }
    const demoLogins = await prisma.user.count({ where: { email: { in: DEMO_LOGINS.map((l) => l.email) } } });
    const demoClusters = await prisma.cluster.count({ where: { name: { in: DEMO_CLUSTERS.map((c) => c.name) } } });
    return {
      seededDemo,
      users: await prisma.user.count(),
      demoLoginsPresent: demoLogins > 0,
      demoWorldPresent: demoClusters === DEMO_CLUSTERS.length,
    };
  } finally {
    await prisma.$disconnect();
  }
}

/** Lines a start prints after preparing the database (what to do next, and what to beware of). */
export function firstStartNotes(state: FirstStart, demo: boolean): string[] {
  const notes: string[] = [];
  if (state.users === 0) notes.push(`No user exists yet. Create the first administrator: ${CREATE_ADMIN_COMMAND}`);
  if (demo && !state.demoWorldPresent) {
    notes.push("This database is not the demo's (TRANCHE_DEMO=1 seeds only an empty one): no fake nodes or demo workload run.");
  }
  if (!demo && state.demoLoginsPresent) {
    notes.push(
      `Warning: this database holds the demo logins (published password "${DEMO_PASSWORD}") from an earlier demo start; ` +
        "use a fresh database for your lab, or disable those users.",
    );
  }
  return notes;
}
