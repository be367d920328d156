import type { PrismaClient, Tx } from "@tranche/db";
import type { Actor } from "../auth/actor";
import { wholeNumberFromEnv } from "../env-number";
import { conflict } from "../errors";
import { lockForUser, USER_LOCK } from "../user-lock";

export const DEFAULT_MAX_WAITING_JOBS_PER_USER = 20_000;

/**
 * The most jobs one user may have waiting (PENDING or HELD) at once: TRANCHE_MAX_WAITING_JOBS_PER_USER,
 * default 20,000 (two full 10,000-task arrays); 0 turns the cap off. Every cycle reads every waiting
 * job, so without a cap one script submitting in a loop slows scheduling for everyone. A bad value is
 * an error naming it, never silently replaced.
 */
export function maxWaitingJobsPerUser(env: NodeJS.ProcessEnv = process.env): number {
  return wholeNumberFromEnv(env, "TRANCHE_MAX_WAITING_JOBS_PER_USER", DEFAULT_MAX_WAITING_JOBS_PER_USER, {
    min: 0,
    what: " of jobs (0: no cap)",
  });
}

/**
 * Runs `insert`, which adds `adding` waiting jobs of the actor, only when that keeps them within the cap:
 * the count and the insert run in one transaction under a lock of the actor's own, so their submissions
 * at once are counted one after another. Counted apart, 8 arrays of 3,000 sent together all passed the
 * check on 9,750 waiting and left 33,750 (a security audit). Past the cap nothing is written (409).
 */
export async function withinWaitingRoom<T>(
  prisma: PrismaClient,
  actor: Actor,
  adding: number,
  insert: (db: PrismaClient | Tx) => Promise<T>,
): Promise<T> {
  const cap = maxWaitingJobsPerUser();
  if (cap === 0 || adding === 0) return insert(prisma);
  return prisma.$transaction(
    async (tx) => {
      await lockForUser(tx, USER_LOCK.waitingJobs, actor.id);
      const waiting = await tx.job.count({ where: { userId: actor.id, state: { in: ["PENDING", "HELD"] } } });
      if (waiting + adding > cap)
        throw conflict(
          `You have ${waiting.toLocaleString("en-US")} job${waiting === 1 ? "" : "s"} waiting (pending or held) and this submission adds ${adding.toLocaleString("en-US")}; one person may have at most ${cap.toLocaleString("en-US")} waiting at once (TRANCHE_MAX_WAITING_JOBS_PER_USER): let some start, or cancel some, first`,
        );
      return insert(tx);
    },
    // A 10,000-task array is one statement of seconds, longer on a busy database; the lock is the actor's alone.
    { timeout: 300_000, maxWait: 10_000 },
  );
}
