import type { PrismaClient } from "@tranche/db";

/**
 * Leader election through a lease row (`worker_lease`, name "scheduler"): one active scheduler at a
 * time. The holder renews it every few seconds; when it stops renewing (crash, SIGKILL, partition)
 * another replica takes it over once it has expired. Times are the database's clock, so replicas'
 * clocks never disagree. Every cycle's transaction re-checks the lease (see applyCyclePlan), so a
 * paused ex-leader that wakes up cannot commit a cycle.
 */
export const LEASE_NAME = "scheduler";

/** Take the lease if it is free or expired, or renew it if we hold it. Returns true when we hold it. */
export async function acquireOrRenewLease(prisma: PrismaClient, holderId: string, ttlSeconds: number): Promise<boolean> {
  const rows = await prisma.$queryRaw<{ holderId: string }[]>`
    INSERT INTO worker_lease (name, "holderId", "expiresAt", "updatedAt")
    VALUES (${LEASE_NAME}, ${holderId}, now() + make_interval(secs => ${ttlSeconds}::float8), now())
    ON CONFLICT (name) DO UPDATE SET "holderId" = EXCLUDED."holderId", "expiresAt" = EXCLUDED."expiresAt", "updatedAt" = now()
    WHERE worker_lease."holderId" = EXCLUDED."holderId" OR worker_lease."expiresAt" < now()
    RETURNING "holderId"`;
  return rows.length === 1 && rows[0]!.holderId === holderId;
}

/** Give the lease up at once (clean shutdown), so a standby takes over without waiting for expiry. */
export async function releaseLease(prisma: PrismaClient, holderId: string): Promise<void> {
  await prisma.$executeRaw`UPDATE worker_lease SET "expiresAt" = now() - interval '1 second', "updatedAt" = now()
    WHERE name = ${LEASE_NAME} AND "holderId" = ${holderId}`;
}

export async function currentLeader(
  prisma: PrismaClient,
): Promise<{ holderId: string; expiresAt: Date; lastCycleAt: Date | null } | null> {
  const rows = await prisma.$queryRaw<{ holderId: string; expiresAt: Date; lastCycleAt: Date | null }[]>`
    SELECT "holderId", "expiresAt", "lastCycleAt" FROM worker_lease WHERE name = ${LEASE_NAME} AND "expiresAt" > now()`;
  return rows[0] ?? null;
}
