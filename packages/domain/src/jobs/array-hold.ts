import { Prisma, type PrismaClient, type Tx } from "@tranche/db";
import { auditOthersArray } from "./job-action-audit";
import type { JobEventKind } from "@tranche/contracts";
import { managedBudgetIds, mayHold, mayReleaseHold, type Actor } from "../auth/actor";
import { actingAs } from "./acting-as";
import { conflict, forbidden, notFound } from "../errors";
import { noArrayWords } from "./job-rules-input";

/**
 * Hold or release a whole job array (`POST /arrays/{id}/hold`, `/release`, `tranche hold --array`), as
 * Slurm's `scontrol hold 160` holds every task of array 160: `tranche hold 160` held task 0 alone.
 * The same rules as one job's hold (setJobHeld), applied to every task in one transaction, rows taken in
 * id order as every transaction that changes many jobs takes them (lock-order.ts): its owner, managers of
 * its budget, operators and admins; a hold takes the waiting tasks (running and ended ones go on as they are); a release lifts
 * the holds the caller may lift (an operator's hold only an operator or an admin).
 */

export interface ArrayHeld {
  arrayId: number;
  /** Waiting tasks now held. */
  held: number;
  /** Tasks running (or stopping), which a hold does not touch. */
  running: number;
}

export interface ArrayReleased {
  arrayId: number;
  /** Held tasks now back in the queue. */
  released: number;
  /** Tasks held by someone the caller may not overrule (an operator, an admin, a manager): they stay held. */
  heldByOperator: number;
}

/** The caller as the tasks' timeline names them, once the rule lets them at the array. */
async function checkArray(prisma: PrismaClient, actor: Actor, arrayId: number, word: "hold" | "release"): Promise<string> {
  const head = await prisma.job.findFirst({ where: { arrayJobId: arrayId }, select: { userId: true, budgetId: true } });
  if (!head) throw notFound(await noArrayWords(prisma, arrayId));
  if (!mayHold(actor, head, await managedBudgetIds(prisma, actor)))
    throw forbidden(
      `Array ${arrayId} is not yours: only its owner, a manager of its budget, an operator or an admin may ${word} it`,
    );
  return actingAs(prisma, actor, head);
}

/** Its tasks by state, in words: "3 held, 2 running, 5 ended". */
async function tasksWords(tx: Tx, arrayId: number): Promise<string> {
  const rows = await tx.$queryRaw<{ what: string; n: number }[]>`
    SELECT CASE WHEN state IN ('RUNNING', 'STOPPING') THEN 'running' WHEN state = 'HELD' THEN 'held'
                WHEN state = 'PENDING' THEN 'waiting' ELSE 'ended' END AS what, count(*)::int AS n
    FROM job WHERE "arrayJobId" = ${arrayId} GROUP BY 1 ORDER BY 1`;
  return rows.map((r) => `${r.n} ${r.what}`).join(", ");
}

const event = async (tx: Tx, ids: number[], actor: Actor, kind: JobEventKind, sentence: string, arrayId: number) =>
  tx.$executeRaw`
    INSERT INTO job_event ("jobId", at, kind, "reasonCode", sentence, details, "actorKind", "actorId")
    SELECT id, now(), ${kind}::text, ${kind === "HELD" ? "HELD" : null}::text, ${sentence}, ${JSON.stringify({ arrayId })}::jsonb,
           'USER'::"ActorKind", ${actor.id}
    FROM unnest(${ids}::int[]) AS id`;

// A start forecast made for the other state would read as current ("in about 2 h" for a task now held):
// dropped with the hold or the release, as setJobHeld drops it; and a new revision, so that a cycle's
// reason or forecast computed before is not stored after it either (setHeldLoaded).
const NO_FORECAST = Prisma.sql`"queuePosition" = NULL, "estimatedStartAt" = NULL, "estimatedStartWhy" = NULL,
  "estimatedStartAfter" = '{}', "estimatedAt" = NULL, revision = revision + 1`;

export async function holdArray(prisma: PrismaClient, actor: Actor, arrayId: number): Promise<ArrayHeld> {
  const by = await checkArray(prisma, actor, arrayId, "hold");
  const sentence = `Held with its array ${arrayId} by ${by}: the scheduler skips it until it is released.`;
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ id: number }[]>`
      WITH mine AS (
        SELECT id FROM job WHERE "arrayJobId" = ${arrayId} AND state = 'PENDING' ORDER BY id FOR UPDATE
      )
      UPDATE job j SET state = 'HELD', "heldBy" = ${actor.id}, "reasonCode" = 'HELD', "reasonSentence" = ${sentence},
             ${NO_FORECAST}, "updatedAt" = now()
      FROM mine WHERE j.id = mine.id RETURNING j.id`;
    if (rows.length === 0) throw conflict(`Array ${arrayId} has no waiting task to hold (${await tasksWords(tx, arrayId)})`);
    await event(
      tx,
      rows.map((r) => r.id),
      actor,
      "HELD",
      sentence,
      arrayId,
    );
    await auditOthersArray(tx, actor, arrayId, "job.hold", rows.length);
    const running = await tx.job.count({ where: { arrayJobId: arrayId, state: { in: ["RUNNING", "STOPPING"] } } });
    return { arrayId, held: rows.length, running };
  });
}

export async function releaseArray(prisma: PrismaClient, actor: Actor, arrayId: number): Promise<ArrayReleased> {
  const by = await checkArray(prisma, actor, arrayId, "release");
  const sentence = `Released with its array ${arrayId} by ${by}: waiting in line again.`;
  return prisma.$transaction(async (tx) => {
    const held = await tx.$queryRaw<{ id: number; userId: string; heldBy: string | null }[]>`
      SELECT id, "userId", "heldBy" FROM job WHERE "arrayJobId" = ${arrayId} AND state = 'HELD' ORDER BY id FOR UPDATE`;
    // One job's rule (an operator's hold only an operator or an admin lifts), task by task.
    const ids = held.filter((j) => mayReleaseHold(actor, j)).map((j) => j.id);
    const heldByOperator = held.length - ids.length;
    const rows =
      ids.length === 0
        ? []
        : await tx.$queryRaw<{ id: number }[]>`
            UPDATE job SET state = 'PENDING', "heldBy" = NULL, "reasonCode" = NULL, "reasonSentence" = NULL,
                   ${NO_FORECAST}, "updatedAt" = now()
            WHERE id = ANY(${ids}::int[]) AND state = 'HELD' RETURNING id`;
    if (rows.length === 0)
      throw heldByOperator > 0
        ? forbidden(
            `The held tasks of array ${arrayId} were held by someone else (an operator, an admin or a manager of its budget): only they, an operator or an admin may release them`,
          )
        : conflict(`Array ${arrayId} has no held task to release (${await tasksWords(tx, arrayId)})`);
    await event(
      tx,
      rows.map((r) => r.id),
      actor,
      "RELEASED",
      sentence,
      arrayId,
    );
    await auditOthersArray(tx, actor, arrayId, "job.release", rows.length);
    return { arrayId, released: rows.length, heldByOperator };
  });
}
