import type { PrismaClient } from "@tranche/db";
import {
  MAX_JOB_ACTION_JOBS,
  type JobAction,
  type JobActionFilter,
  type JobActionPreview,
  type JobActionRequest,
  type JobActionResult,
  type JobState,
} from "@tranche/contracts";
import { jobAccess, managedBudgetIds, mayCancel, mayHold, roleWithArticle, type Actor } from "../auth/actor";
import { clusterIdNamed } from "../cluster-named";
import { DomainError, badInput, forbidden, notFound } from "../errors";
import { JOB_TO_CHANGE, cancelLoaded, setHeldLoaded, type JobToChange } from "./job-actions";

/**
 * Cancel, hold or release many jobs in one request (`POST /jobs/actions`, `tranche cancel 41 42 43`,
 * `tranche hold --state pending --cluster h100`), as Slurm's `scancel 41 42 43` or `scancel -t PENDING`.
 * Each job goes through its one-job rule and change (job-actions.ts) in its own short transaction, in id
 * order, so at most MAX_JOB_ACTION_JOBS short transactions: a refusal names the job and why, and the
 * others go on. A job the caller may neither act on nor read is refused as if there were none, so a
 * list of guessed ids tells nothing of others' jobs.
 */
export async function actOnJobs(
  prisma: PrismaClient,
  actor: Actor,
  input: JobActionRequest,
): Promise<JobActionResult | JobActionPreview> {
  const { action } = input;
  const managed = await managedBudgetIds(prisma, actor);
  const ids = input.filter
    ? await jobsOfFilter(prisma, actor, action, input.filter, managed)
    : [...new Set(input.ids)].sort((a, b) => a - b);
  if (input.dryRun) return { action, jobs: ids };
  const rows = await prisma.job.findMany({ where: { id: { in: ids } }, select: JOB_TO_CHANGE });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A manager reads "You have no job" as a researcher does: of the jobs they may act on, they have none such.
  const none = (id: number) => (mayActOnAnyones(actor, action) ? `There is no job ${id}` : `You have no job ${id}`);
  const result: JobActionResult = { action, done: [], refused: [] };
  for (const id of ids) {
    const job = byId.get(id);
    if (!job) {
      result.refused.push({ id, reason: none(id) });
      continue;
    }
    try {
      await applyRule(prisma, actor, job, action, managed);
      result.done.push(id);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      const hidden = e.code === "FORBIDDEN" && jobAccess(actor, job, managed) === "none";
      result.refused.push({ id, reason: hidden ? none(id) : e.message });
    }
  }
  return result;
}

function applyRule(
  prisma: PrismaClient,
  actor: Actor,
  job: JobToChange,
  action: JobAction,
  managed: ReadonlySet<string>,
): Promise<void> {
  return action === "cancel"
    ? cancelLoaded(prisma, actor, job, managed)
    : setHeldLoaded(prisma, actor, job, action === "hold", managed);
}

/**
 * Does the action's one-job rule let the actor act on a job of someone else's in any budget? (userId
 * "": nobody's, budgetId "": none a manager manages.) Managers act on others' jobs only in theirs.
 */
const mayActOnAnyones = (actor: Actor, action: JobAction): boolean => {
  const nobodys = { userId: "", budgetId: "" };
  return action === "cancel" ? mayCancel(actor, nobodys, new Set()) : mayHold(actor, nobodys, new Set());
};

/** May the caller's filter take others' jobs at all (a manager's: those of the budgets they manage)? */
const mayActOnOthers = (actor: Actor, action: JobAction): boolean => mayActOnAnyones(actor, action) || actor.role === "MANAGER";

const STATES: Record<NonNullable<JobActionFilter["state"]>, JobState> = {
  pending: "PENDING",
  running: "RUNNING",
  held: "HELD",
};

/**
 * The ids a filter selects now, in id order; more than MAX_JOB_ACTION_JOBS is refused whole. `everyone`
 * means every job the caller may act on: anyone's for admins (and operators, to hold or release), their
 * own and those charged to the budgets they manage for a manager.
 */
async function jobsOfFilter(
  prisma: PrismaClient,
  actor: Actor,
  action: JobAction,
  f: JobActionFilter,
  managed: ReadonlySet<string>,
): Promise<number[]> {
  if (f.everyone && !mayActOnOthers(actor, action))
    throw forbidden(
      `Only ${action === "cancel" ? "managers (for the budgets they manage) and admins" : "managers (for the budgets they manage), operators and admins"} may ${action} others' jobs; you are signed in as ${roleWithArticle(actor.role)}: leave out everyone to ${action} your own`,
    );
  const clusterId = f.cluster === undefined ? undefined : await clusterIdNamed(prisma, f.cluster);
  let budgetId: string | undefined;
  if (f.budget !== undefined) {
    const budget = await prisma.budgetTreeNode.findUnique({ where: { path: f.budget }, select: { id: true } });
    if (!budget) throw notFound(`There is no budget '${f.budget}'`);
    budgetId = budget.id;
  }
  const rows = await prisma.job.findMany({
    where: {
      ...whose(actor, action, f.everyone === true, managed),
      state: f.state ? STATES[f.state] : { in: Object.values(STATES) },
      name: f.name,
      clusterId,
      budgetId,
    },
    select: { id: true },
    orderBy: { id: "asc" },
    take: MAX_JOB_ACTION_JOBS + 1,
  });
  if (rows.length > MAX_JOB_ACTION_JOBS)
    throw badInput(
      `The filter selects more than ${MAX_JOB_ACTION_JOBS.toLocaleString("en-US")} jobs; one request acts on at most ${MAX_JOB_ACTION_JOBS.toLocaleString("en-US")}: narrow it by state, name, cluster or budget`,
      "filter",
    );
  return rows.map((r) => r.id);
}

/** Whose jobs a filter reaches (see jobsOfFilter). */
function whose(actor: Actor, action: JobAction, everyone: boolean, managed: ReadonlySet<string>) {
  if (!everyone) return { userId: actor.id };
  if (mayActOnAnyones(actor, action)) return {};
  return { OR: [{ userId: actor.id }, { budgetId: { in: [...managed] } }] };
}
