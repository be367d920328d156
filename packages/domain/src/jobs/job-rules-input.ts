import { Prisma, type PrismaClient } from "@tranche/db";
import { auditOthersArray } from "./job-action-audit";
import { dependencyStatus, type DependencyState } from "@tranche/scheduler-core";
import { parseArraySpec, parseDependency, type ArraySpec, type JobEventKind } from "@tranche/contracts";
import { jobAccess, managedBudgetIds, mayCancel, type Actor, type Db } from "../auth/actor";
import { DomainError, badInput, conflict, forbidden, notFound } from "../errors";
import { parentStateSql } from "../runtime/dependency-state";
import { cancelJob } from "./job-actions";
import { actingAs } from "./acting-as";

export type Dependency = { parentId: number; condition: "OK" | "ANY" };

/** `--array`: the task indexes and cap, or a bad-input error naming the field (`prefix` names a batch item). */
export function expandArray(spec: string | undefined, prefix: string, field: string | undefined): ArraySpec | null {
  if (spec === undefined) return null;
  const r = parseArraySpec(spec);
  if (typeof r === "string") throw badInput(`${prefix}${r}`, field);
  return r;
}

/**
 * `--after`: each item's dependencies, checked against the database: every job named exists and is one
 * the caller may see (its owner, managers of its budget, operators, admins). A job one may not see is
 * answered like one that does not exist, so the error tells nothing about other people's jobs.
 */
export async function checkDependencies(
  db: Db,
  actor: Actor,
  specs: readonly (readonly string[])[],
  fail: (item: number, message: string) => DomainError,
): Promise<Dependency[][]> {
  const parsed = specs.map((list, i) =>
    list.map((s) => {
      const d = parseDependency(s);
      if (typeof d === "string") throw fail(i, d);
      return { parentId: d.jobId, condition: d.condition };
    }),
  );
  const ids = [...new Set(parsed.flat().map((d) => d.parentId))];
  if (ids.length === 0) return parsed;
  const rows = await db.job.findMany({ where: { id: { in: ids } }, select: { id: true, userId: true, budgetId: true } });
  // The manager's subtree is read once: per dependency, a batch of 1,000 jobs with 100 each was 100,000 queries.
  const managed = await managedBudgetIds(db, actor);
  const found = new Map(rows.map((r) => [r.id, r]));
  for (let i = 0; i < parsed.length; i++) {
    const seen = new Set<number>();
    for (const d of parsed[i]!) {
      if (seen.has(d.parentId)) throw fail(i, `after names job ${d.parentId} twice`);
      seen.add(d.parentId);
      const row = found.get(d.parentId);
      if (!row || jobAccess(actor, row, managed) === "none")
        throw fail(
          i,
          `after: job ${d.parentId} does not exist or is not one you may wait for: a job waits only for jobs its owner may read (their own, or those in budgets they manage)`,
        );
    }
  }
  await refuseEndedParents(db, parsed, fail);
  return parsed;
}

/**
 * An `:ok` dependency on a job that has already ended without success could never be met: refused
 * here, naming the job and how it ended, rather than taken and left pending for good (what Slurm does,
 * showing DependencyNeverSatisfied). An array's id stands for its tasks: one of them ended so, and none
 * still to run, is enough, read as the scheduler reads it (dependency-state.ts, the core's
 * dependencyStatus). A parent that fails after this check leaves the job pending with
 * DEPENDENCY_NEVER_SATISFIED, as before.
 */
async function refuseEndedParents(
  db: Db,
  parsed: Dependency[][],
  fail: (item: number, message: string) => DomainError,
): Promise<void> {
  const ids = [...new Set(parsed.flat().flatMap((d) => (d.condition === "OK" ? [d.parentId] : [])))];
  if (ids.length === 0) return;
  const parents = await db.$queryRaw<{ parentId: number; state: string | null; endedTaskId: number | null }[]>`
    SELECT x.id AS "parentId", s.state, s."endedTaskId"
    FROM unnest(${ids}::int[]) AS x(id) CROSS JOIN LATERAL (${parentStateSql(Prisma.raw("x.id"))}) s`;
  // The core's rule decides which can never be met.
  const ended = parents.filter(
    (p) => p.state !== null && dependencyStatus({ condition: "ok", state: p.state as DependencyState }) === "NEVER",
  );
  const byParent = new Map(ended.map((e) => [e.parentId, e]));
  for (let i = 0; i < parsed.length; i++) {
    for (const d of parsed[i]!) {
      const e = d.condition === "OK" ? byParent.get(d.parentId) : undefined;
      if (!e) continue;
      const which = e.endedTaskId === e.parentId ? `job ${e.parentId}` : `task ${e.endedTaskId} of array ${e.parentId}`;
      throw fail(
        i,
        `after: ${which} already ended (${e.state!.toLowerCase()}), so a job that waits for it to succeed could never start: leave it out, or write ${e.parentId}:any to start once it has ended`,
      );
    }
  }
}

// Any fixed number apart from the others (tree-admin.ts, users.ts): the key of the dependency updates' lock.
const DEPENDENCY_LOCK = 7_262_003;

/**
 * Replace a pending job's dependencies (`PUT /api/v1/jobs/{id}/dependencies`, `tranche depend`, like
 * Slurm's `scontrol update dependency=`). Owners and admins; only while it has not started. Refused
 * when it would close a cycle (a job that, through its dependencies, waits for itself): such jobs
 * would wait forever. Replaced in one transaction that first takes one advisory lock for every
 * dependency update, so two updates cannot together build a cycle: the job's row lock alone let
 * "a waits for b" and "c waits for a" (b already waiting for c) each pass its check before the other's
 * write was seen.
 */
export async function setDependencies(prisma: PrismaClient, actor: Actor, jobId: number, after: string[]): Promise<Dependency[]> {
  const job = await prisma.job.findUnique({ where: { id: jobId }, select: { userId: true, state: true, arrayJobId: true } });
  if (!job) throw notFound(`There is no job ${jobId}`);
  if (job.userId !== actor.id && actor.role !== "ADMIN")
    throw forbidden(`Job ${jobId} is not yours: only its owner or an admin may change its dependencies`);
  const [deps] = await checkDependencies(prisma, actor, [after], (_, m) => badInput(m, "after"));
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT 1 AS ok FROM (SELECT pg_advisory_xact_lock(${DEPENDENCY_LOCK}::bigint)) l`;
    const locked = await tx.$queryRaw<{ state: string }[]>`SELECT state::text AS state FROM job WHERE id = ${jobId} FOR UPDATE`;
    const state = locked[0]?.state;
    if (state !== "PENDING" && state !== "HELD")
      throw conflict(`Job ${jobId} is ${state?.toLowerCase()}: dependencies change only while it waits to start`);
    // Everything the new parents wait for, transitively (an array's id stands for all its tasks).
    const self = [jobId, ...(job.arrayJobId !== null ? [job.arrayJobId] : [])];
    const cyc = await tx.$queryRaw<{ id: number }[]>`
      WITH RECURSIVE up(id) AS (
        SELECT unnest(${deps!.map((d) => d.parentId)}::int[])
        UNION
        SELECT x.id FROM up CROSS JOIN LATERAL (
          SELECT d."parentId" AS id FROM job_dependency d WHERE d."jobId" = up.id
          UNION ALL SELECT p.id FROM job p WHERE p."arrayJobId" = up.id
        ) x
      )
      SELECT id FROM up WHERE id = ANY(${self}::int[]) LIMIT 1`;
    if (cyc.length > 0)
      throw badInput(
        `after: that would make a cycle of dependencies (job ${jobId} would wait, through job ${deps!.map((d) => d.parentId).join(", ")}, for itself); nothing was changed`,
        "after",
      );
    await tx.jobDependency.deleteMany({ where: { jobId } });
    if (deps!.length > 0) await tx.jobDependency.createMany({ data: deps!.map((d) => ({ jobId, ...d })) });
    await tx.jobEvent.create({
      data: {
        jobId,
        kind: "DEPENDENCIES_SET" satisfies JobEventKind,
        sentence:
          deps!.length === 0
            ? `${actor.name} removed its dependencies.`
            : `${actor.name} set its dependencies: starts after ${deps!.map((d) => `job ${d.parentId} ${d.condition === "OK" ? "succeeds" : "ends"}`).join(" and ")}.`,
        details: { after: deps },
        actorKind: "USER",
        actorId: actor.id,
      },
    });
    await tx.$executeRaw`SELECT pg_notify('tranche_jobs', "clusterId") FROM job WHERE id = ${jobId}`;
    return deps!;
  });
}

/**
 * Why `arrayId` names no array, in words that lead to the right id: a list shows each task by its own
 * id, while an array goes by its first task's ("There is no job array 165" left a researcher who gave a
 * task's id, or a plain job's, guessing).
 */
export async function noArrayWords(prisma: PrismaClient, arrayId: number): Promise<string> {
  const job = await prisma.job.findUnique({ where: { id: arrayId }, select: { arrayJobId: true, arrayIndex: true } });
  if (job?.arrayJobId != null)
    return `Job ${arrayId} is task ${job.arrayIndex} of array ${job.arrayJobId}; the array goes by its first task's id, ${job.arrayJobId}`;
  if (job) return `Job ${arrayId} is not a job array`;
  return `There is no job array ${arrayId}`;
}

/** Who may cancel a whole array: whoever may cancel its tasks (its owner, managers of its budget and admins). */
export const mayCancelArray = (actor: Actor, head: { userId: string; budgetId: string }, managed: ReadonlySet<string>): boolean =>
  mayCancel(actor, head, managed);

/**
 * Cancel every task of an array that has not ended: waiting ones at once (one statement), running ones
 * as cancelJob does (SIGTERM, then SIGKILL after their grace). Owners, managers of its budget and admins.
 */
export async function cancelArray(
  prisma: PrismaClient,
  actor: Actor,
  arrayId: number,
): Promise<{ arrayId: number; cancelled: number; stopping: number }> {
  const head = await prisma.job.findFirst({ where: { arrayJobId: arrayId }, select: { userId: true, budgetId: true } });
  if (!head) throw notFound(await noArrayWords(prisma, arrayId));
  if (!mayCancelArray(actor, head, await managedBudgetIds(prisma, actor)))
    throw forbidden(`Array ${arrayId} is not yours: only its owner, a manager of its budget or an admin may cancel it`);
  const by = await actingAs(prisma, actor, head);
  const now = new Date();
  const cancelled = await prisma.$transaction(async (tx) => {
    // Rows in id order, as every transaction that changes many jobs takes them (lock-order.ts).
    const rows = await tx.$queryRaw<{ id: number }[]>`
      WITH mine AS (
        SELECT id FROM job WHERE "arrayJobId" = ${arrayId} AND state IN ('PENDING', 'HELD') ORDER BY id FOR UPDATE
      )
      UPDATE job j SET state = 'CANCELLED', "finishedAt" = ${now}, "queuePosition" = NULL, "reasonCode" = NULL,
             "reasonSentence" = NULL, "updatedAt" = now()
      FROM mine WHERE j.id = mine.id RETURNING j.id`;
    if (rows.length > 0)
      await tx.$executeRaw`
        INSERT INTO job_event ("jobId", at, kind, sentence, details, "actorKind", "actorId")
        SELECT id, ${now}, ${"CANCELLED" satisfies JobEventKind}::text, ${`Cancelled with its array ${arrayId} by ${by} before it started.`},
               ${JSON.stringify({ arrayId })}::jsonb, 'USER'::"ActorKind", ${actor.id}
        FROM unnest(${rows.map((r) => r.id)}::int[]) AS id`;
    await auditOthersArray(tx, actor, arrayId, "job.cancel", rows.length);
    return rows.length;
  });
  const running = await prisma.job.findMany({ where: { arrayJobId: arrayId, state: "RUNNING" }, select: { id: true } });
  let stopping = 0;
  for (const r of running) {
    try {
      await cancelJob(prisma, actor, r.id);
      stopping++;
    } catch (e) {
      // It ended or was stopped meanwhile: nothing left to cancel.
      if (!(e instanceof DomainError && e.code === "CONFLICT")) throw e;
    }
  }
  return { arrayId, cancelled, stopping };
}
