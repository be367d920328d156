import type { PrismaClient } from "@tranche/db";
import { formatExactDuration, type JobEventKind, type JobState, type JobView } from "@tranche/contracts";
import { defaultPolicy, gracePeriodFor } from "@tranche/scheduler-core";
import { managedBudgetIds, mayCancel, mayHold, mayReleaseHold, type Actor } from "../auth/actor";
import { actingAs } from "./acting-as";
import { conflict, forbidden, notFound } from "../errors";
import { forecastFactsOf } from "./forecast-facts";
import { auditOthersJob } from "./job-action-audit";
import { jobViewInclude, toJobView } from "./job-view";
import { accessToJob } from "./queries";
import { heldReasonNow } from "../runtime/hold-facts";

async function loadJob(prisma: PrismaClient, id: number) {
  const job = await prisma.job.findUnique({ where: { id }, include: jobViewInclude });
  if (!job) throw notFound(`There is no job ${id}`);
  return job;
}

/** What the rules below read of a job: one job's actions load it whole, many jobs' actions only this. */
export interface JobToChange {
  id: number;
  userId: string;
  budgetId: string;
  state: JobState;
  heldBy: string | null;
  gracePeriodSec: number | null;
  graceUntil: Date | null;
}

export const JOB_TO_CHANGE = {
  id: true,
  userId: true,
  budgetId: true,
  state: true,
  heldBy: true,
  gracePeriodSec: true,
  graceUntil: true,
} as const;

/**
 * Cancel a job. PENDING/HELD -> CANCELLED at once. RUNNING -> STOPPING with graceUntil = now + its
 * grace period: the worker sends SIGTERM, then SIGKILL at graceUntil, and closes the run segment.
 * The state change is conditional on the state read, so a race with the worker fails cleanly.
 */
export async function cancelJob(prisma: PrismaClient, actor: Actor, id: number): Promise<JobView> {
  await cancelLoaded(prisma, actor, await loadJob(prisma, id));
  const after = await loadJob(prisma, id);
  return toJobView(after, await forecastFactsOf(prisma, after), await accessToJob(prisma, actor, after));
}

/**
 * cancelJob's rule and change, on a job already read (throws as cancelJob does). `managed`: the actor's
 * managedBudgetIds, when the caller has read them once for many jobs.
 */
export async function cancelLoaded(
  prisma: PrismaClient,
  actor: Actor,
  job: JobToChange,
  managed?: ReadonlySet<string>,
): Promise<void> {
  const { id } = job;
  // Owners end their jobs early (SPEC R4); managers of its budget and admins may too.
  if (!mayCancel(actor, job, managed ?? (await managedBudgetIds(prisma, actor))))
    throw forbidden(`Job ${id} is not yours: only its owner, a manager of its budget or an admin may cancel it`);
  const by = await actingAs(prisma, actor, job);
  const now = new Date();
  if (job.state === "PENDING" || job.state === "HELD") {
    await prisma.$transaction(async (tx) => {
      const r = await tx.job.updateMany({
        where: { id, state: job.state },
        data: {
          state: "CANCELLED",
          finishedAt: now,
          queuePosition: null,
          reasonCode: null,
          reasonSentence: null,
          reasonDetails: undefined,
        },
      });
      if (r.count !== 1) throw conflict(`Job ${id} changed state while cancelling; try again`);
      await tx.jobEvent.create({
        data: {
          jobId: id,
          at: now,
          kind: "CANCELLED" satisfies JobEventKind,
          sentence: `Cancelled by ${by} before it started.`,
          actorKind: "USER",
          actorId: actor.id,
        },
      });
      await auditOthersJob(tx, actor, job, "job.cancel");
    });
  } else if (job.state === "RUNNING") {
    // Charged as the core decided at START (its open run segment), not guessed from the contract.
    const open = await prisma.runSegment.findFirst({ where: { jobId: id, endedAt: null }, select: { charged: true } });
    const charged = open?.charged ?? false;
    const grace = gracePeriodFor({ gracePeriod: job.gracePeriodSec }, charged, defaultPolicy);
    const graceUntil = new Date(now.getTime() + grace * 1000);
    await prisma.$transaction(async (tx) => {
      const r = await tx.job.updateMany({ where: { id, state: "RUNNING" }, data: { state: "STOPPING", graceUntil } });
      if (r.count !== 1) throw conflict(`Job ${id} changed state while cancelling; try again`);
      await tx.jobEvent.create({
        data: {
          jobId: id,
          at: now,
          kind: "CANCEL_REQUESTED" satisfies JobEventKind,
          sentence: `Cancelled by ${by} while running: asked to stop now, stopped by force after ${formatExactDuration(grace)} if it has not exited.`,
          details: { graceSeconds: grace, graceUntil: graceUntil.toISOString() },
          actorKind: "USER",
          actorId: actor.id,
        },
      });
      await auditOthersJob(tx, actor, job, "job.cancel");
    });
    // Wake the agents long-polling for its nodes (best effort: they also learn it on their next heartbeat).
    await prisma.$executeRaw`
      SELECT pg_notify('tranche_agents', json_agg(p."nodeId")::text)
      FROM segment_placement p JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL
      WHERE s."jobId" = ${id} HAVING count(*) > 0`.catch(() => undefined);
  } else if (job.state === "STOPPING") {
    // In words, not a timestamp: this reaches people (the CLI, My jobs' list of refused jobs).
    const left = job.graceUntil ? Math.max(0, Math.ceil((job.graceUntil.getTime() - now.getTime()) / 1000)) : null;
    throw conflict(
      `Job ${id} is already stopping: stopped by force ${left === null ? "at the end of its grace period" : `in ${formatExactDuration(left)}`} if it has not exited`,
    );
  } else {
    throw conflict(`Job ${id} has already finished (${job.state.toLowerCase()})`);
  }
}

/** Hold (PENDING -> HELD) or release (HELD -> PENDING). Owners, managers of its budget, operators and admins. */
export async function setJobHeld(prisma: PrismaClient, actor: Actor, id: number, held: boolean): Promise<JobView> {
  await setHeldLoaded(prisma, actor, await loadJob(prisma, id), held);
  const after = await loadJob(prisma, id);
  return toJobView(after, await forecastFactsOf(prisma, after), await accessToJob(prisma, actor, after));
}

/** setJobHeld's rules and change, on a job already read (throws as setJobHeld does; `managed` as cancelLoaded's). */
export async function setHeldLoaded(
  prisma: PrismaClient,
  actor: Actor,
  job: JobToChange,
  held: boolean,
  managed?: ReadonlySet<string>,
): Promise<void> {
  const { id } = job;
  if (!mayHold(actor, job, managed ?? (await managedBudgetIds(prisma, actor))))
    throw forbidden(
      `Job ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may ${held ? "hold" : "release"} it`,
    );
  // An operator's hold (a job that breaks nodes, say) would mean nothing if its owner could lift it.
  if (!held && job.state === "HELD" && !mayReleaseHold(actor, job))
    throw forbidden(
      `Job ${id} was held by someone else (an operator, an admin or a manager of its budget): only they, an operator or an admin may release it`,
    );
  const from = held ? "PENDING" : "HELD";
  if (job.state !== from)
    throw conflict(
      held
        ? job.state === "HELD"
          ? `Job ${id} is already held`
          : `Only a pending job can be held; job ${id} is ${job.state.toLowerCase()}`
        : job.state === "PENDING"
          ? `Job ${id} is not held`
          : `Job ${id} is not held (it is ${job.state.toLowerCase()})`,
    );
  const now = new Date();
  const by = await actingAs(prisma, actor, job);
  const sentence = held
    ? `Held by ${by}: the scheduler skips it until it is released.`
    : `Released by ${by}: waiting in line again.`;
  // Its start forecast was made for the other state ("in about 2 h" for a job now held, "it is held"
  // for one released): dropped, so the job reads "no start forecast yet" until the next refresh.
  const noForecast = { estimatedStartAt: null, estimatedStartWhy: null, estimatedStartAfter: [], estimatedAt: null };
  // And a new revision, as a change of its values makes (update-job.ts): a cycle's reason or start
  // forecast computed before the hold or release is not stored on the job after it (write-reasons.ts,
  // start-forecast.ts).
  const reset = { queuePosition: null, ...noForecast, revision: { increment: 1 } };
  const reason = heldReasonNow(actor, job.userId, id, now);
  await prisma.$transaction(async (tx) => {
    const r = await tx.job.updateMany({
      where: { id, state: from },
      data: held
        ? {
            state: "HELD",
            heldBy: actor.id,
            reasonCode: "HELD",
            reasonSentence: reason.sentence,
            reasonDetails: reason.details,
            ...reset,
          }
        : { state: "PENDING", heldBy: null, reasonCode: null, reasonSentence: null, ...reset },
    });
    if (r.count !== 1) throw conflict(`Job ${id} changed state; try again`);
    await tx.jobEvent.create({
      data: {
        jobId: id,
        at: now,
        kind: (held ? "HELD" : "RELEASED") satisfies JobEventKind,
        reasonCode: held ? "HELD" : null,
        sentence,
        actorKind: "USER",
        actorId: actor.id,
      },
    });
    await auditOthersJob(tx, actor, job, held ? "job.hold" : "job.release");
  });
}
