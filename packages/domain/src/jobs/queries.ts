import type { PrismaClient } from "@tranche/db";
import type { JobView, ListJobsInput } from "@tranche/contracts";
import {
  jobAccess,
  managedBudgetIds,
  mayCancel,
  mayHold,
  mayReleaseHold,
  type Actor,
  type Db,
  type JobAccess,
} from "../auth/actor";
import { forbidden, notFound } from "../errors";
import { jobViewInclude, laneOf, maskJobView, reasonDetailsView, toJobView } from "./job-view";
import { forecastFactsOf } from "./forecast-facts";
import { userNameSql } from "../user-name";
import { clusterIdNamed } from "../cluster-named";
import { noArrayWords } from "./job-rules-input";

/** What the actor may read of one job (see jobAccess). */
export async function accessToJob(db: Db, actor: Actor, job: { userId: string; budgetId: string }): Promise<JobAccess> {
  const quick = jobAccess(actor, job, new Set());
  return quick === "full" || actor.role !== "MANAGER" ? quick : jobAccess(actor, job, await managedBudgetIds(db, actor));
}

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * A JobView built by Postgres (same keys, order and formats as toJobView; command and env are masked
 * in JS, lane is the core's isDebugLane; budgetId is only for that and removed): the rows arrive as one JSON text, so the driver and the ORM
 * handle one value instead of 50 rows of 40 columns (listing is what scripts poll).
 */
const JOB_VIEW_JSON = `json_build_object(
  'id', j.id, 'name', j.name, 'cluster', c.name, 'budget', b.path,
  'user', json_build_object('id', u.id, 'name', ${userNameSql("u")}, 'email', u.email),
  'gpus', j.gpus, 'minRuntime', j."minRuntimeSec", 'maxRuntime', j."maxRuntimeSec", 'resumable', j.resumable,
  'requeue', j."requeuePolicy" = 'REQUEUE', 'priority', j.priority, 'gracePeriod', j."gracePeriodSec",
  'command', j.command, 'env', COALESCE(j.env, '{}'::jsonb),
  'secretEnvNames', (SELECT COALESCE(json_agg(k ORDER BY k), '[]') FROM jsonb_object_keys(j."secretEnv") k), 'state', j.state,
  'submittedAt', ${iso('j."submittedAt"')}, 'queuedAt', ${iso('j."queuedAt"')}, 'startedAt', ${iso('j."startedAt"')},
  'protectedUntil', ${iso('j."protectedUntil"')}, 'graceUntil', ${iso('j."graceUntil"')}, 'finishedAt', ${iso('j."finishedAt"')},
  'exitCode', j."exitCode", 'requeueCount', j."requeueCount", 'heldBy', j."heldBy",
  'squattingSince', ${iso('j."squattingSince"')}, 'lastCheckpointAt', ${iso('j."lastCheckpointAt"')},
  'reason', CASE WHEN j."reasonCode" IS NOT NULL AND j."reasonCode" <> '' AND j."reasonSentence" IS NOT NULL AND j."reasonSentence" <> ''
    THEN json_build_object('code', j."reasonCode", 'sentence', j."reasonSentence", 'position', j."queuePosition",
                           'details', COALESCE(j."reasonDetails", 'null'::jsonb)) END,
  'array', CASE WHEN j."arrayJobId" IS NOT NULL AND j."arrayIndex" IS NOT NULL
    THEN json_build_object('id', j."arrayJobId", 'index', j."arrayIndex", 'spec', COALESCE(j."arraySpec", '')) END,
  'after', (SELECT COALESCE(json_agg(json_build_object('jobId', d."parentId", 'condition', d.condition) ORDER BY d."parentId"), '[]')
            FROM job_dependency d WHERE d."jobId" = j.id),
  'retries', json_build_object('max', j."maxRetries", 'used', j."retryCount"),
  'kind', j.kind, 'session', NULL,
  'budgetId', j."budgetId")`;

/** The caller's jobs (or everyone's, for operators, managers and admins), newest first. */
export async function listJobs(prisma: PrismaClient, actor: Actor, input: ListJobsInput = {}): Promise<JobView[]> {
  const where = await jobListWhere(prisma, actor, input);
  if (input.state) where.sql.push(`j.state = ${where.p(input.state)}::"JobState"`);
  else if (input.active === true) where.sql.push(`j.state IN ${ACTIVE_SQL}`);
  else if (input.active === false) where.sql.push(`j.state NOT IN ${ACTIVE_SQL}`);
  // An id that names no array is a 404 too, saying which id to use when it names a task or a plain job.
  if (input.array !== undefined) {
    if (!(await prisma.job.findFirst({ where: { arrayJobId: input.array }, select: { id: true } })))
      throw notFound(await noArrayWords(prisma, input.array));
    where.sql.push(`j."arrayJobId" = ${where.p(input.array)}`);
  }
  return jobViewsWhere(prisma, actor, where, Math.max(1, Math.min(input.limit ?? 100, 1000)));
}

export const ACTIVE_SQL = `('PENDING','HELD','RUNNING','STOPPING')`;

/** A list's conditions on the job row `j`, as SQL, with their parameters ($1...). */
export interface JobListWhere {
  sql: string[];
  params: unknown[];
  p: (v: unknown) => string;
}

/** Whose jobs and which cluster's: the conditions every job list starts from. */
export async function jobListWhere(prisma: PrismaClient, actor: Actor, input: ListJobsInput): Promise<JobListWhere> {
  const scope = input.scope ?? "mine";
  if (scope === "all" && actor.role === "RESEARCHER") throw forbidden("Researchers list only their own jobs");
  const where = newWhere();
  if (scope === "mine") where.sql.push(`j."userId" = ${where.p(actor.id)}`);
  // An unknown cluster is a 404, as the queue answers, not an empty list a typo would hide behind.
  if (input.cluster) where.sql.push(`j."clusterId" = ${where.p(await clusterIdNamed(prisma, input.cluster))}`);
  return where;
}

/** No conditions yet: p(value) adds a parameter and says its place ($1, $2...). */
export function newWhere(): JobListWhere {
  const params: unknown[] = [];
  return { sql: [], params, p: (v) => (params.push(v), `$${params.length}`) };
}

/** The jobs that meet `where`, newest first, at most `limit`, as the caller may read them. */
export async function jobViewsWhere(prisma: PrismaClient, actor: Actor, where: JobListWhere, limit: number): Promise<JobView[]> {
  // One SQL statement: listing is what scripts poll, so it avoids the ORM's per-relation queries.
  const n = where.p(limit);
  const rows = await prisma.$queryRawUnsafe<{ jobs: string }[]>(
    `SELECT COALESCE(json_agg(${JOB_VIEW_JSON} ORDER BY j.id DESC), '[]')::text AS jobs
     FROM (SELECT * FROM job j ${where.sql.length ? `WHERE ${where.sql.join(" AND ")}` : ""} ORDER BY j.id DESC LIMIT ${n}) j
       JOIN cluster c ON c.id = j."clusterId" JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"`,
    ...where.params,
  );
  const jobs = JSON.parse(rows[0]?.jobs ?? "[]") as (Omit<JobView, "lane"> & { lane?: JobView["lane"]; budgetId?: string })[];
  const managed = await managedBudgetIds(prisma, actor);
  for (const j of jobs) {
    maskJobView(j, jobAccess(actor, { userId: j.user.id, budgetId: j.budgetId! }, managed));
    delete j.budgetId;
    // Its times as the job's own page gives them (ISO 8601), not the scheduler's seconds.
    if (j.reason) j.reason.details = reasonDetailsView(j.reason.details);
    j.lane = laneOf({ gpus: j.gpus, minRuntimeSec: j.minRuntime, maxRuntimeSec: j.maxRuntime });
  }
  return jobs as JobView[];
}

export async function getJob(prisma: PrismaClient, actor: Actor, id: number): Promise<JobView> {
  const job = await prisma.job.findUnique({ where: { id }, include: jobViewInclude });
  if (!job) throw notFound(`There is no job ${id}`);
  return toJobView(job, await forecastFactsOf(prisma, job), await accessToJob(prisma, actor, job));
}

export interface JobTimelineEvent {
  id: string;
  at: string;
  kind: string;
  reasonCode: string | null;
  sentence: string;
  actorKind: string;
  actorName: string | null;
  details: unknown;
}

export interface JobSegmentView {
  id: string;
  startedAt: string;
  endedAt: string | null;
  protectedUntil: string | null;
  charged: boolean;
  endReason: string | null;
  endDetail: string | null;
  /** nodeGpus: the node's GPU count, so a page can say "all 8 GPUs" */
  placements: { node: string; nodeGpus: number; gpuIndexes: number[] }[];
}

export interface JobDetail {
  job: JobView;
  events: JobTimelineEvent[];
  segments: JobSegmentView[];
  canCancel: boolean;
  canHold: boolean;
  detailsVisible: boolean;
}

/** Job page: the job, its event timeline, run segments with nodes and GPUs. */
export async function getJobDetail(prisma: PrismaClient, actor: Actor, id: number): Promise<JobDetail> {
  const job = await prisma.job.findUnique({ where: { id }, include: jobViewInclude });
  if (!job) throw notFound(`There is no job ${id}`);
  const access = await accessToJob(prisma, actor, job);
  const [events, segments, facts] = await Promise.all([
    prisma.jobEvent.findMany({ where: { jobId: id }, orderBy: [{ at: "asc" }, { id: "asc" }], take: 500 }),
    prisma.runSegment.findMany({
      where: { jobId: id },
      orderBy: { startedAt: "asc" },
      include: { placements: { include: { node: { select: { name: true, gpuCount: true } } } } },
    }),
    forecastFactsOf(prisma, job),
  ]);
  const actorIds = [...new Set(events.map((e) => e.actorId).filter((x): x is string => !!x))];
  const names = new Map(
    (await prisma.user.findMany({ where: { id: { in: actorIds } }, select: { id: true, name: true } })).map((u) => [
      u.id,
      u.name,
    ]),
  );
  const managed = await managedBudgetIds(prisma, actor);
  return {
    job: toJobView(job, facts, access),
    events: events.map((e) => ({
      id: e.id.toString(),
      at: e.at.toISOString(),
      kind: e.kind,
      reasonCode: e.reasonCode,
      sentence: e.sentence,
      actorKind: e.actorKind,
      actorName: e.actorId ? (names.get(e.actorId) ?? null) : null,
      details: e.details,
    })),
    segments: segments.map((s) => ({
      id: s.id.toString(),
      startedAt: s.startedAt.toISOString(),
      endedAt: s.endedAt?.toISOString() ?? null,
      protectedUntil: s.protectedUntil?.toISOString() ?? null,
      charged: s.charged,
      endReason: s.endReason,
      endDetail: s.endDetail,
      placements: s.placements
        .map((p) => ({ node: p.node.name, nodeGpus: p.node.gpuCount, gpuIndexes: p.gpuIndexes }))
        .sort((a, b) => a.node.localeCompare(b.node, "en", { numeric: true })),
    })),
    canCancel: mayCancel(actor, job, managed) && ["PENDING", "HELD", "RUNNING"].includes(job.state),
    canHold: mayHold(actor, job, managed) && (job.state === "PENDING" || (job.state === "HELD" && mayReleaseHold(actor, job))),
    detailsVisible: access !== "none",
  };
}
