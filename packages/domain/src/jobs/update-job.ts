import type { PrismaClient } from "@tranche/db";
import { formatExactDuration, nodeListsOverlap, type JobEventKind, type JobView, type UpdateJob } from "@tranche/contracts";
import { canChargeBudget, managedBudgetIds, mayHold, type Actor, type Role } from "../auth/actor";
import { DomainError, badInput, conflict, forbidden, notFound } from "../errors";
import { forecastFactsOf } from "./forecast-facts";
import { jobViewInclude, laneOf, toJobView } from "./job-view";
import { accessToJob } from "./queries";
import { noArrayWords } from "./job-rules-input";
import { checkNodeLists, withNamedNodesNow } from "./node-lists";
import { cachedCluster, checkContract, leafBudget } from "./submit-job";

/**
 * Change a waiting job's contract in place (`PATCH /api/v1/jobs/{id}`, `job.update`, `tranche update`,
 * the job page's Edit form), as Slurm's `scontrol update`: it keeps its id and its submit time, so its
 * place in its budget's queue. Who may: whoever may hold it (mayHold: its owner, managers of its budget,
 * operators, admins).
 * Only while it waits (PENDING or HELD, a requeued one too). Every value is checked as at submit, on
 * the job as it would be (submit-job.ts: the cluster's nodes and bounds, a leaf budget its owner may
 * charge); one bad value refuses the whole change and nothing is written.
 *
 * An update whose values are the job's own changes nothing and is answered as done (`changed: false`):
 * a script that retries a change it made gets the job back, not an error; no event, no revision.
 *
 * The fence against a cycle that read the old values: the write counts up job.revision, and is
 * conditional on the state and revision read here. The worker starts a job only at the revision its
 * snapshot read, under the row lock its commit holds (apply-plan.ts), so the job is either started
 * with the old values before this write (which then finds it running and is refused) or not at all
 * by that cycle; the next one decides on the new values.
 */

const JOB_FIELDS = {
  id: true,
  userId: true,
  state: true,
  kind: true,
  revision: true,
  name: true,
  gpus: true,
  minRuntimeSec: true,
  maxRuntimeSec: true,
  priority: true,
  resumable: true,
  requeuePolicy: true,
  gracePeriodSec: true,
  budgetId: true,
  arrayJobId: true,
  arrayIndex: true,
  nodeList: true,
  excludeNodes: true,
  cluster: { select: { name: true } },
  budget: { select: { path: true } },
  user: { select: { name: true, role: true } },
} as const;

type Row = {
  id: number;
  userId: string;
  state: string;
  kind: string;
  revision: number;
  name: string;
  gpus: number;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  priority: number;
  resumable: boolean;
  requeuePolicy: string;
  gracePeriodSec: number | null;
  budgetId: string;
  arrayJobId: number | null;
  arrayIndex: number | null;
  nodeList: string[];
  excludeNodes: string[];
  cluster: { name: string };
  budget: { path: string };
  user: { name: string; role: string };
};

type Values = Pick<
  Row,
  "gpus" | "minRuntimeSec" | "maxRuntimeSec" | "priority" | "name" | "budgetId" | "nodeList" | "excludeNodes"
>;

export interface JobUpdated {
  job: JobView;
  /** false: the job already had these values, and nothing was written. */
  changed: boolean;
}

export interface ArrayUpdated {
  arrayId: number;
  /** Waiting tasks changed. */
  updated: number;
  /** Tasks that no longer wait (running or ended), left as they are. */
  notWaiting: number;
  /** false: every waiting task already had these values, and nothing was written. */
  changed: boolean;
}

/** Why a job that does not wait cannot be changed, and what can be done instead. */
function notWaitingWords(job: Pick<Row, "id" | "state" | "kind">): string {
  const was = `Job ${job.id} is ${job.state.toLowerCase()}: only a job that waits to start (pending or held) can be changed`;
  if (job.state === "RUNNING" && job.kind === "INTERACTIVE")
    return `${was}. To keep this session longer, extend its protection: tranche extend ${job.id} --by 1h`;
  if (job.state === "RUNNING" || job.state === "STOPPING")
    return `${was}; to run it with other values, cancel it and submit it again`;
  return `${was}; it has ended, so submit a new job with the values you want`;
}

const runtimeWords = (s: number | null) => (s === null ? "none" : formatExactDuration(s));

/** "GPUs 8 -> 4, max runtime 1 h -> 2 h": what a change does to a job, in the submit form's words. */
function changeWords(before: Values & { budgetPath: string }, after: Values & { budgetPath: string }): string[] {
  const out: string[] = [];
  if (before.gpus !== after.gpus) out.push(`GPUs ${before.gpus} -> ${after.gpus}`);
  if (before.minRuntimeSec !== after.minRuntimeSec)
    out.push(`min runtime ${runtimeWords(before.minRuntimeSec)} -> ${runtimeWords(after.minRuntimeSec)}`);
  if (before.maxRuntimeSec !== after.maxRuntimeSec)
    out.push(`max runtime ${runtimeWords(before.maxRuntimeSec)} -> ${runtimeWords(after.maxRuntimeSec)}`);
  if (before.priority !== after.priority) out.push(`priority ${before.priority} -> ${after.priority}`);
  if (before.name !== after.name) out.push(`name '${before.name}' -> '${after.name}'`);
  if (before.budgetId !== after.budgetId) out.push(`budget ${before.budgetPath} -> ${after.budgetPath}`);
  const list = (l: string[]) => (l.length === 0 ? "any" : l.join(", "));
  if (list(before.nodeList) !== list(after.nodeList)) out.push(`nodes ${list(before.nodeList)} -> ${list(after.nodeList)}`);
  const ex = (l: string[]) => (l.length === 0 ? "none" : l.join(", "));
  if (ex(before.excludeNodes) !== ex(after.excludeNodes))
    out.push(`excluded nodes ${ex(before.excludeNodes)} -> ${ex(after.excludeNodes)}`);
  return out;
}

/**
 * A manager acts on a member's job because its budget lies in their subtree, so they may charge it
 * only to another budget of that subtree: moving it out would spend a budget they do not manage.
 * The job's owner, operators and admins are not bound by it (the owner's membership is asked anyway).
 */
function keepsManagersScope(
  actor: Actor,
  job: { id: number; userId: string; budgetId: string },
  checked: { values: Values; budgetPath: string },
  managed: Set<string>,
): void {
  if (actor.role !== "MANAGER" || actor.id === job.userId || checked.values.budgetId === job.budgetId) return;
  if (managed.has(checked.values.budgetId)) return;
  throw new DomainError(
    "FORBIDDEN",
    `Job ${job.id} may not be moved to '${checked.budgetPath}': you manage the budget it is charged to, not that one`,
    "budget",
  );
}

/**
 * The new values of each job, checked as at submit, or the first refusal. Jobs of one array share
 * their owner and cluster, so the budget is looked up and its membership asked once.
 */
async function checkedValues(
  prisma: PrismaClient,
  rows: Row[],
  input: UpdateJob,
): Promise<{ values: Values; budgetPath: string }[]> {
  const first = rows[0]!;
  let budget: { id: string; path: string } | null = null;
  if (input.budget !== undefined) {
    budget = await leafBudget(prisma, input.budget, (m) => badInput(m, "budget"));
    // The owner is charged, whoever makes the change: the rule of submit, asked of the owner.
    const owner: Actor = { id: first.userId, name: first.user.name, email: "", role: first.user.role as Role };
    if (budget.id !== first.budgetId && !(await canChargeBudget(prisma, owner, budget.id)))
      throw new DomainError(
        "FORBIDDEN",
        `Job ${first.id} may not be charged to '${budget.path}': its owner, ${first.user.name}, is not one of its members`,
        "budget",
      );
  }
  const cached = await cachedCluster(prisma, first.cluster.name);
  if (!cached) throw conflict(`Job ${first.id}'s cluster ${first.cluster.name} no longer exists`);
  const cluster = await withNamedNodesNow(prisma, cached, input.nodes ?? rows.flatMap((r) => r.nodeList));
  return rows.map((r) => {
    const values: Values = {
      gpus: input.gpus ?? r.gpus,
      minRuntimeSec: input.minRuntime ?? r.minRuntimeSec,
      maxRuntimeSec: input.maxRuntime === undefined ? r.maxRuntimeSec : input.maxRuntime,
      priority: input.priority ?? r.priority,
      name: input.name ?? r.name,
      budgetId: budget?.id ?? r.budgetId,
      nodeList: input.nodes === undefined ? r.nodeList : (input.nodes ?? []),
      excludeNodes: input.excludeNodes === undefined ? r.excludeNodes : (input.excludeNodes ?? []),
    };
    const fail = (m: string, field: string | undefined) =>
      badInput(rows.length > 1 ? `Task ${r.arrayIndex} (job ${r.id}): ${m}` : m, field);
    checkContract(
      {
        gpus: values.gpus,
        minRuntime: values.minRuntimeSec,
        maxRuntime: values.maxRuntimeSec,
        priority: values.priority,
        resumable: r.resumable,
        requeueOnPreempt: r.requeuePolicy === "REQUEUE",
        gracePeriod: r.gracePeriodSec,
      },
      cluster,
      fail,
    );
    // Submit's checks of the node lists, on the lists as they would be (one changed, the other kept).
    const overlap = nodeListsOverlap(values.nodeList, values.excludeNodes);
    if (overlap) throw fail(overlap, input.excludeNodes !== undefined ? "excludeNodes" : "nodes");
    checkNodeLists({ gpus: values.gpus, nodes: values.nodeList, excludeNodes: values.excludeNodes }, cluster, fail);
    return { values, budgetPath: budget?.path ?? r.budget.path };
  });
}

/**
 * Writes the changes of the jobs that differ, with one event each: one statement for all (an array's
 * 10,000 tasks too), rows locked in id order as every transaction that changes many jobs takes them
 * (lock-order.ts), each conditional on the state and revision read. Returns the ids written; a job
 * that moved on meanwhile makes the whole change fail, and nothing is written.
 */
async function writeChanges(
  prisma: PrismaClient,
  actor: Actor,
  rows: Row[],
  checked: { values: Values; budgetPath: string }[],
  arrayId: number | null,
): Promise<number[]> {
  const changes = rows.flatMap((r, i) => {
    const { values, budgetPath } = checked[i]!;
    const words = changeWords({ ...r, budgetPath: r.budget.path }, { ...values, budgetPath });
    if (words.length === 0) return [];
    const side = (v: Values, budget: string) => ({
      gpus: v.gpus,
      minRuntime: v.minRuntimeSec,
      maxRuntime: v.maxRuntimeSec,
      priority: v.priority,
      name: v.name,
      budget,
      nodes: v.nodeList,
      excludeNodes: v.excludeNodes,
    });
    return [
      {
        r,
        values,
        sentence: `${actor.name} changed ${words.join(", ")}${arrayId !== null ? ` (with its array ${arrayId})` : ""}.`,
        details: JSON.stringify({
          before: side(r, r.budget.path),
          after: side(values, budgetPath),
          lane: laneOf(values),
          ...(arrayId !== null ? { arrayId } : {}),
        }),
      },
    ];
  });
  if (changes.length === 0) return [];
  const ids = changes.map((c) => c.r.id);
  const col = <T>(f: (c: (typeof changes)[number]) => T) => changes.map(f);
  await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM job WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
    // A held job keeps its HELD reason; a pending one's reason and position were for the old values,
    // and so was either's start forecast: the next cycle and forecast say them again.
    const written = await tx.$queryRaw<{ id: number }[]>`
      UPDATE job j SET gpus = u.g, "minRuntimeSec" = u.mn, "maxRuntimeSec" = u.mx, priority = u.p, name = u.n,
             "budgetId" = u.b, "nodeList" = ARRAY(SELECT jsonb_array_elements_text(u.nl::jsonb)),
             "excludeNodes" = ARRAY(SELECT jsonb_array_elements_text(u.xl::jsonb)), revision = j.revision + 1,
             "reasonCode" = CASE WHEN j.state = 'PENDING' THEN NULL ELSE j."reasonCode" END,
             "reasonSentence" = CASE WHEN j.state = 'PENDING' THEN NULL ELSE j."reasonSentence" END,
             "reasonDetails" = CASE WHEN j.state = 'PENDING' THEN NULL ELSE j."reasonDetails" END,
             "reasonCycleId" = CASE WHEN j.state = 'PENDING' THEN NULL ELSE j."reasonCycleId" END,
             "queuePosition" = NULL, "estimatedStartAt" = NULL, "estimatedStartWhy" = NULL,
             "estimatedStartAfter" = '{}', "estimatedAt" = NULL, "updatedAt" = now()
      FROM unnest(${ids}::int[], ${col((c) => c.r.revision)}::int[], ${col((c) => c.values.gpus)}::int[],
                  ${col((c) => c.values.minRuntimeSec)}::int[], ${col((c) => c.values.maxRuntimeSec)}::int[],
                  ${col((c) => c.values.priority)}::int[], ${col((c) => c.values.name)}::text[],
                  ${col((c) => c.values.budgetId)}::text[], ${col((c) => JSON.stringify(c.values.nodeList))}::text[],
                  ${col((c) => JSON.stringify(c.values.excludeNodes))}::text[]) AS u(id, rev, g, mn, mx, p, n, b, nl, xl)
      WHERE j.id = u.id AND j.revision = u.rev AND j.state IN ('PENDING', 'HELD')
      RETURNING j.id`;
    if (written.length !== ids.length) {
      const done = new Set(written.map((w) => w.id));
      const id = ids.find((i) => !done.has(i))!;
      const now = await tx.job.findUnique({ where: { id }, select: { state: true, kind: true } });
      throw conflict(
        now && now.state !== "PENDING" && now.state !== "HELD"
          ? notWaitingWords({ id, ...now })
          : `Job ${id} was changed by someone else meanwhile; look at it again and retry`,
      );
    }
    await tx.$executeRaw`
      INSERT INTO job_event ("jobId", at, kind, sentence, details, "actorKind", "actorId")
      SELECT u.id, now(), ${"UPDATED" satisfies JobEventKind}::text, u.s, u.d::jsonb, 'USER'::"ActorKind", ${actor.id}
      FROM unnest(${ids}::int[], ${col((c) => c.sentence)}::text[], ${col((c) => c.details)}::text[]) AS u(id, s, d)`;
    // The worker decides again at once rather than on its next period.
    await tx.$executeRaw`SELECT pg_notify('tranche_jobs', "clusterId") FROM job WHERE id = ${ids[0]!}`;
  });
  return ids;
}

export async function updateJob(prisma: PrismaClient, actor: Actor, id: number, input: UpdateJob): Promise<JobUpdated> {
  const row = await prisma.job.findUnique({ where: { id }, select: JOB_FIELDS });
  if (!row) throw notFound(`There is no job ${id}`);
  const managed = await managedBudgetIds(prisma, actor);
  if (!mayHold(actor, row, managed))
    throw forbidden(`Job ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may change it`);
  if (row.state !== "PENDING" && row.state !== "HELD") throw conflict(notWaitingWords(row));
  const checked = await checkedValues(prisma, [row], input);
  keepsManagersScope(actor, row, checked[0]!, managed);
  const written = await writeChanges(prisma, actor, [row], checked, null);
  const after = await prisma.job.findUniqueOrThrow({ where: { id }, include: jobViewInclude });
  const job = toJobView(after, await forecastFactsOf(prisma, after), await accessToJob(prisma, actor, after));
  return { job, changed: written.length > 0 };
}

/** Every task of an array that still waits, changed as one: all or none. */
export async function updateArray(prisma: PrismaClient, actor: Actor, arrayId: number, input: UpdateJob): Promise<ArrayUpdated> {
  const tasks = await prisma.job.findMany({ where: { arrayJobId: arrayId }, select: JOB_FIELDS, orderBy: { id: "asc" } });
  if (tasks.length === 0) throw notFound(await noArrayWords(prisma, arrayId));
  const managed = await managedBudgetIds(prisma, actor);
  if (!mayHold(actor, tasks[0]!, managed))
    throw forbidden(
      `Array ${arrayId} is not yours: only its owner, a manager of its budget, an operator or an admin may change it`,
    );
  const waiting = tasks.filter((t) => t.state === "PENDING" || t.state === "HELD");
  if (waiting.length === 0) throw conflict(`Array ${arrayId} has no task that waits to start: none can be changed`);
  const checked = await checkedValues(prisma, waiting, input);
  keepsManagersScope(actor, tasks[0]!, checked[0]!, managed);
  const written = await writeChanges(prisma, actor, waiting, checked, arrayId);
  return { arrayId, updated: written.length, notWaiting: tasks.length - waiting.length, changed: written.length > 0 };
}
