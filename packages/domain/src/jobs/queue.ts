import { LIMITS } from "@tranche/contracts";
import { Prisma, type PrismaClient } from "@tranche/db";
import { notFound } from "../errors";
import { managedBudgetIds, ownerEmailVisibleSql, type Actor } from "../auth/actor";
import { NO_FORECAST_FACTS, forecastFacts, type ForecastFacts } from "./forecast-facts";
import { laneOf, reasonDetailsView, startForecastView } from "./job-view";
import { awaitingExitIds } from "./in-use";
import { queueReservations, type QueueReservation } from "./queue-reservations";
import { userNameSql } from "../user-name";

export interface QueuePendingRow {
  id: number;
  name: string;
  position: number | null;
  budget: string;
  user: string;
  userId: string;
  gpus: number;
  state: "PENDING" | "HELD";
  lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  submittedAt: string;
  queuedAt: string;
  reasonCode: string | null;
  reasonSentence: string | null;
  /** The reason's numbers, times as ISO 8601 (see reasonDetailsView). */
  reasonDetails: Record<string, unknown> | null;
  /** The core's start forecast (ISO 8601), null when unknown with `estimatedStartWhy` (see JobView). */
  estimatedStartAt: string | null;
  estimatedStartWhy: string | null;
  estimatedStartAfter: number[];
  /** A task of a job array: "task 7 of 0-99%10"; null otherwise. */
  task: string | null;
}

export interface QueueRunningRow {
  id: number;
  name: string;
  budget: string;
  user: string;
  userId: string;
  gpus: number;
  state: "RUNNING" | "STOPPING";
  lane: "DEBUG" | "ALLOCATED" | "UNALLOCATED";
  startedAt: string | null;
  protectedUntil: string | null;
  graceUntil: string | null;
  maxRuntime: number | null;
  nodes: string[];
  /** When it was flagged as likely squatting (GPUs under 5% busy for 30 minutes); null when it is not. */
  squattingSince: string | null;
  /** Started by preemption, holding its GPUs until the jobs it preempted exit (its start is still ahead). */
  awaitingExits: boolean;
  /** A task of a job array: "task 7 of 0-99%10"; null otherwise. */
  task: string | null;
}

export interface QueueRatio {
  treeNodeId: string;
  name: string;
  path: string;
  parentId: string | null;
  depth: number;
  effectiveAllocation: number;
  usageGpuSeconds: number;
  entitlementGpuSeconds: number;
  ratio: number | null;
  projectedRatio: number | null;
  heldGpus: number;
}

export interface QueueView {
  cluster: { id: string; name: string; gpuType: string; gpus: number; readyGpus: number };
  /** The budget path the jobs were narrowed to (it and its subtree, as squeue -A), null for all. */
  budget: string | null;
  now: string;
  cycle: {
    id: string;
    at: string;
    durationMs: number;
    started: number;
    preempted: number;
    pendingCount: number;
    runningCount: number;
  } | null;
  pending: QueuePendingRow[];
  running: QueueRunningRow[];
  ratios: QueueRatio[];
  reservations: QueueReservation[];
  /** runningGpus: GPUs in use (launched and leaving jobs); awaitingGpus: held by starts waiting for exits. */
  counts: { pending: number; held: number; running: number; pendingGpus: number; runningGpus: number; awaitingGpus: number };
  /** true when `pending` holds every pending job (no limit cut it) */
  complete: boolean;
}

/** The job views' lane (laneOf), for a budget with an allocation on the cluster. */
const lane = (gpus: number, minRuntimeSec: number, maxRuntimeSec: number | null) =>
  laneOf({ gpus, minRuntimeSec, maxRuntimeSec });

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);

interface PendingSqlRow {
  id: number;
  name: string;
  queuePosition: number | null;
  gpus: number;
  state: string;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  submittedAt: Date;
  queuedAt: Date;
  reasonCode: string | null;
  reasonSentence: string | null;
  reasonDetails: unknown;
  estimatedStartAt: Date | null;
  estimatedStartWhy: string | null;
  estimatedStartAfter: number[] | null;
  estimatedAt: Date | null;
  userId: string;
  budget: string;
  userName: string;
  task: string | null;
}

interface RunningSqlRow {
  id: number;
  name: string;
  gpus: number;
  state: string;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  startedAt: Date | null;
  protectedUntil: Date | null;
  graceUntil: Date | null;
  userId: string;
  budget: string;
  userName: string;
  nodes: string[] | null;
  task: string | null;
  squattingSince: Date | null;
}

/** The scheduler's order of pending jobs (jobs it has not seen yet follow by submit time). */
const PENDING_ORDER = `j."queuePosition" ASC NULLS LAST, j."submittedAt" ASC, j.id ASC`;

/**
 * One window of a cluster's pending jobs (PENDING and HELD) in the scheduler's order, optionally
 * filtered by budget path, user name, job id, or the owner's e-mail on the jobs `emailVisible` lets
 * the reader see it of (else the filter would tell anyone whose e-mail a name has, a letter at a time).
 * Only the ids are sorted (a narrow top-N sort of the cluster's pending jobs); the page's rows are
 * joined afterwards, so a page costs the same at offset 0 and 9,900 and the join touches `limit` rows,
 * not 10,000.
 */
async function pendingWindow(
  prisma: PrismaClient,
  clusterId: string,
  offset: number,
  limit: number,
  filter: string,
  emailVisible: (p: (v: unknown) => string) => string,
  budgetIds: readonly string[] | null = null,
): Promise<{ rows: PendingSqlRow[]; total: number | null }> {
  const params: unknown[] = [clusterId];
  const p = (v: unknown) => (params.push(v), `$${params.length}`);
  let join = "";
  let where = `j."clusterId" = $1 AND j.state IN ('PENDING', 'HELD')`;
  if (budgetIds) where += ` AND j."budgetId" = ANY(${p(budgetIds)}::text[])`;
  if (filter) {
    const like = p(`%${filter.replace(/[\\%_]/g, (c) => "\\" + c)}%`);
    const id = /^#?\d{1,9}$/.test(filter) ? Number(filter.replace("#", "")) : null;
    join = `JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"`;
    where += ` AND (b.path ILIKE ${like} OR u.name ILIKE ${like} OR (u.email ILIKE ${like} AND ${emailVisible(p)})${id !== null ? ` OR j.id = ${p(id)}` : ""})`;
  }
  const filterParams = [...params];
  const lim = p(limit);
  const off = p(offset);
  const [rows, total] = await Promise.all([
    limit === 0
      ? Promise.resolve([] as PendingSqlRow[])
      : prisma.$queryRawUnsafe<PendingSqlRow[]>(
          `WITH page AS (
             SELECT j.id FROM job j ${join} WHERE ${where}
             ORDER BY ${PENDING_ORDER} LIMIT ${lim} OFFSET ${off})
           SELECT j.id, j.name, j."queuePosition", j.gpus, j.state::text AS state, j."minRuntimeSec", j."maxRuntimeSec",
                  j."submittedAt", j."queuedAt", j."reasonCode", j."reasonSentence", j."reasonDetails", j."userId", b.path AS budget, ${userNameSql("u")} AS "userName",
                  j."estimatedStartAt", j."estimatedStartWhy", j."estimatedStartAfter", j."estimatedAt",
                  CASE WHEN j."arrayIndex" IS NOT NULL THEN 'task ' || j."arrayIndex" || ' of ' || j."arraySpec" END AS task
           FROM page JOIN job j ON j.id = page.id
             JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"
           ORDER BY ${PENDING_ORDER}`,
          ...params,
        ),
    filter
      ? prisma
          .$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM job j ${join} WHERE ${where}`, ...filterParams)
          .then((r) => r[0]?.n ?? 0)
      : Promise.resolve(null),
  ]);
  return { rows, total };
}

/** The pending rows as the queue shows them, each forecast with what it is shown with (forecast-facts.ts). */
async function pendingRows(prisma: PrismaClient, clusterId: string, rows: PendingSqlRow[]): Promise<QueuePendingRow[]> {
  const facts = await forecastFacts(
    prisma,
    rows.map((r) => ({ ...r, clusterId })),
  );
  return rows.map((r) => toPendingRow(r, facts.get(r.id) ?? NO_FORECAST_FACTS));
}

const toPendingRow = (j: PendingSqlRow, facts: ForecastFacts): QueuePendingRow => ({
  id: j.id,
  name: j.name,
  position: j.queuePosition,
  budget: j.budget,
  user: j.userName,
  userId: j.userId,
  gpus: j.gpus,
  state: j.state as "PENDING" | "HELD",
  lane: lane(j.gpus, j.minRuntimeSec, j.maxRuntimeSec),
  submittedAt: j.submittedAt.toISOString(),
  queuedAt: j.queuedAt.toISOString(),
  reasonCode: j.reasonCode,
  reasonSentence: j.reasonSentence,
  reasonDetails: reasonDetailsView(j.reasonDetails),
  ...(({ estimatedStartAt, estimatedStartWhy, estimatedStartAfter }) => ({
    estimatedStartAt,
    estimatedStartWhy,
    estimatedStartAfter,
  }))(startForecastView(j, facts)),
  task: j.task,
});

async function findCluster(prisma: PrismaClient, clusterName: string) {
  const [cluster] = await prisma.$queryRaw<{ id: string; name: string; gpuType: string; gpus: number; readyGpus: number }[]>`
    SELECT c.id, c.name, c."gpuType", COALESCE(SUM(n."gpuCount"), 0)::int AS gpus,
           COALESCE(SUM(n."gpuCount") FILTER (WHERE n.state = 'READY'), 0)::int AS "readyGpus"
    FROM cluster c LEFT JOIN node n ON n."clusterId" = c.id AND n.state <> 'RETIRED'
    WHERE c.name = ${clusterName} GROUP BY c.id`;
  if (!cluster) throw notFound(`Unknown cluster '${clusterName}'`);
  return cluster;
}

/** A budget path's node and every node below it (squeue -A's account and its sub-accounts), by id. */
async function subtreeIds(prisma: PrismaClient, path: string): Promise<string[]> {
  const rows = await prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM budget_tree_node WHERE path = ${path} OR starts_with(path, ${path} || '/')`;
  if (rows.length === 0) throw notFound(`Unknown budget '${path}' (tranche budgets lists them)`);
  return rows.map((r) => r.id);
}

export interface QueuePage {
  /** pending jobs matching the filter (all pending and held jobs without one) */
  total: number;
  offset: number;
  rows: QueuePendingRow[];
}

/**
 * A window of the live queue's pending list for the virtualized view: the browser asks for the rows
 * it shows (and the filter typed), never for all 10,000. Same order and reasons as getQueue.
 */
export async function getQueuePage(
  prisma: PrismaClient,
  actor: Actor,
  clusterName: string,
  opts: { offset: number; limit: number; filter?: string },
): Promise<QueuePage> {
  const [cluster, managed] = await Promise.all([findCluster(prisma, clusterName), managedBudgetIds(prisma, actor)]);
  const filter = (opts.filter ?? "").trim().slice(0, 200);
  const offset = Math.max(0, Math.floor(opts.offset));
  const limit = Math.max(0, Math.min(Math.floor(opts.limit), 1000));
  const [w, total] = await Promise.all([
    pendingWindow(prisma, cluster.id, offset, limit, filter, (p) => ownerEmailVisibleSql(actor, managed, p)),
    filter ? Promise.resolve(null) : prisma.job.count({ where: { clusterId: cluster.id, state: { in: ["PENDING", "HELD"] } } }),
  ]);
  return { total: w.total ?? total ?? 0, offset, rows: await pendingRows(prisma, cluster.id, w.rows) };
}

/**
 * The live queue of one cluster: pending jobs in the scheduler's order (Job.queuePosition and the
 * reason the worker wrote at the latest cycle; jobs it has not seen yet follow by submit time),
 * running jobs with their protection, and the latest cycle's fair-share ratios. Reads only: the UI
 * never guesses an order or a reason (SPEC R10). `limit` cuts the pending list (the web app asks for
 * the head and pages the rest with getQueuePage).
 */
export async function getQueue(
  prisma: PrismaClient,
  clusterName: string,
  opts: { limit?: number; budget?: string } = {},
): Promise<QueueView> {
  const cluster = await findCluster(prisma, clusterName);
  const budgetIds = opts.budget === undefined ? null : await subtreeIds(prisma, opts.budget);
  const limit = Math.max(0, Math.min(opts.limit ?? LIMITS.queueRows, LIMITS.queueRowsMax));
  const nowMs = Date.now();
  const inBudget = budgetIds ? Prisma.sql`AND j."budgetId" = ANY(${budgetIds}::text[])` : Prisma.empty;
  const [pending, pendingCounts, running, cycle, tree, awaiting] = await Promise.all([
    pendingWindow(prisma, cluster.id, 0, limit, "", () => "FALSE", budgetIds).then((w) => w.rows),
    prisma.job.groupBy({
      by: ["state"],
      where: {
        clusterId: cluster.id,
        state: { in: ["PENDING", "HELD"] },
        ...(budgetIds ? { budgetId: { in: budgetIds } } : {}),
      },
      _count: { _all: true },
      _sum: { gpus: true },
    }),
    // One statement (Prisma's nested segments -> placements -> node loading is four round trips).
    prisma.$queryRaw<RunningSqlRow[]>`
      SELECT j.id, j.name, j.gpus, j.state::text AS state, j."minRuntimeSec", j."maxRuntimeSec", j."startedAt",
             j."protectedUntil", j."graceUntil", j."userId", b.path AS budget, left(u.name, ${LIMITS.personNameChars}::int) AS "userName", j."squattingSince",
             CASE WHEN j."arrayIndex" IS NOT NULL THEN 'task ' || j."arrayIndex" || ' of ' || j."arraySpec" END AS task,
             (SELECT array_agg(DISTINCT n.name ORDER BY n.name)
                FROM run_segment s JOIN segment_placement p ON p."segmentId" = s.id JOIN node n ON n.id = p."nodeId"
               WHERE s."jobId" = j.id AND s."endedAt" IS NULL) AS nodes
      FROM job j JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"
      WHERE j."clusterId" = ${cluster.id} AND j.state IN ('RUNNING', 'STOPPING') ${inBudget}
      ORDER BY j."startedAt" ASC NULLS LAST, j.id ASC`,
    prisma.schedulingCycle.findFirst({ where: { clusterId: cluster.id }, orderBy: { at: "desc" } }),
    prisma.budgetTreeNode.findMany({ select: { id: true, path: true } }),
    awaitingExitIds(prisma, cluster.id, new Date(nowMs)),
  ]);
  const paths = new Map(tree.map((t) => [t.id, t.path]));
  const rawRatios = Array.isArray(cycle?.ratios) ? (cycle!.ratios as Record<string, unknown>[]) : [];
  const ratios: QueueRatio[] = rawRatios
    .map((r) => {
      const id = String(r.treeNodeId ?? "");
      const path = paths.get(id) ?? String(r.name ?? id);
      return {
        treeNodeId: id,
        name: String(r.name ?? ""),
        path,
        parentId: (r.parentId as string | null) ?? null,
        depth: path.split("/").length - 1,
        effectiveAllocation: num(r.effectiveAllocation) ?? 0,
        usageGpuSeconds: num(r.usageGpuSeconds) ?? 0,
        entitlementGpuSeconds: num(r.entitlementGpuSeconds) ?? 0,
        ratio: num(r.ratio),
        projectedRatio: num(r.projectedRatioAfter) ?? num(r.projectedRatio),
        heldGpus: num(r.heldGpus) ?? 0,
      };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
  const pendingView = await pendingRows(prisma, cluster.id, pending);
  const runningRows: QueueRunningRow[] = running.map((j) => ({
    id: j.id,
    name: j.name,
    budget: j.budget,
    user: j.userName,
    userId: j.userId,
    gpus: j.gpus,
    state: j.state as "RUNNING" | "STOPPING",
    lane: lane(j.gpus, j.minRuntimeSec, j.maxRuntimeSec),
    startedAt: j.startedAt?.toISOString() ?? null,
    protectedUntil: j.protectedUntil?.toISOString() ?? null,
    graceUntil: j.graceUntil?.toISOString() ?? null,
    maxRuntime: j.maxRuntimeSec,
    nodes: j.nodes ?? [],
    squattingSince: j.squattingSince?.toISOString() ?? null,
    awaitingExits: awaiting.has(Number(j.id)),
    task: j.task,
  }));
  return {
    cluster: { id: cluster.id, name: cluster.name, gpuType: cluster.gpuType, gpus: cluster.gpus, readyGpus: cluster.readyGpus },
    budget: opts.budget ?? null,
    now: new Date(nowMs).toISOString(),
    cycle: cycle
      ? {
          id: cycle.id.toString(),
          at: cycle.at.toISOString(),
          durationMs: cycle.durationMs,
          started: cycle.started,
          preempted: cycle.preempted,
          pendingCount: cycle.pendingCount,
          runningCount: cycle.runningCount,
        }
      : null,
    pending: pendingView,
    running: runningRows,
    ratios,
    reservations: await queueReservations(prisma, cluster.id, cycle?.reservations),
    complete: pending.length < limit,
    counts: {
      pending: pendingCounts.find((c) => c.state === "PENDING")?._count._all ?? 0,
      held: pendingCounts.find((c) => c.state === "HELD")?._count._all ?? 0,
      running: runningRows.filter((r) => !r.awaitingExits).length,
      pendingGpus: pendingCounts.find((c) => c.state === "PENDING")?._sum.gpus ?? 0,
      // A start waiting for its victims holds the GPUs they still use: counted apart, never twice.
      runningGpus: runningRows.reduce((s, r) => s + (r.awaitingExits ? 0 : r.gpus), 0),
      awaitingGpus: runningRows.reduce((s, r) => s + (r.awaitingExits ? r.gpus : 0), 0),
    },
  };
}
