import type { Tx } from "@tranche/db";

/**
 * The keys of per-person advisory locks, one for each limit that counts a person's rows before adding
 * one. Two requests of one person counted the same rows and each added one, together passing the limit;
 * holding the lock from the count to the commit makes the second count the first one's row. Other
 * people's requests take other locks and never wait. (Postgres keeps two-number keys apart from the
 * one-number keys of the tree and dependency locks.)
 */
export const USER_LOCK = { apiTokens: 7_262_101, waitingJobs: 7_262_102 } as const;

/** Held until the transaction ends. */
export async function lockForUser(tx: Tx, key: (typeof USER_LOCK)[keyof typeof USER_LOCK], userId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_advisory_xact_lock(${key}::int, hashtext(${userId}))) l`;
}
