import type { PrismaClient } from "@tranche/db";
import type { Actor } from "../auth/actor";
import { wholeNumberFromEnv } from "../env-number";
import { conflict } from "../errors";

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
 * Refuse a submission of `adding` jobs that would take the actor past the cap, before anything is
 * written. Counted apart from the insert: two submissions racing may together pass the cap by at most
 * one submission each, which bounds the queue all the same.
 */
export async function assertWaitingRoom(prisma: PrismaClient, actor: Actor, adding: number): Promise<void> {
  const cap = maxWaitingJobsPerUser();
  if (cap === 0 || adding === 0) return;
  const waiting = await prisma.job.count({ where: { userId: actor.id, state: { in: ["PENDING", "HELD"] } } });
  if (waiting + adding > cap)
    throw conflict(
      `You have ${waiting.toLocaleString("en-US")} job${waiting === 1 ? "" : "s"} waiting (pending or held) and this submission adds ${adding.toLocaleString("en-US")}; one person may have at most ${cap.toLocaleString("en-US")} waiting at once (TRANCHE_MAX_WAITING_JOBS_PER_USER): let some start, or cancel some, first`,
    );
}
