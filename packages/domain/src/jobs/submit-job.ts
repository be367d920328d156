import { inService } from "../nodes/in-service";
import { checkNodeLists, withNamedNodesNow } from "./node-lists";
import type { PrismaClient } from "@tranche/db";
import { defaultJobName, explainContract, type JobEventKind, type JobView, type SubmitJob } from "@tranche/contracts";
import { defaultPolicy, validateJobContract } from "@tranche/scheduler-core";
import type { Actor } from "../auth/actor";
import { DomainError, badInput, conflict } from "../errors";
import { MAX_ARRAY_TASKS } from "@tranche/contracts";
import { fromSec, nowSec } from "../runtime/time";
import { NO_FORECAST_FACTS, forecastFacts } from "./forecast-facts";
import { jobViewInclude, laneOf, toJobView } from "./job-view";
import { checkDependencies, expandArray } from "./job-rules-input";
import { withinWaitingRoom } from "./waiting-cap";

/**
 * Submit a job (SPEC §2, §6). The input has passed `submitJobInput`; here come the checks that need
 * the database: the cluster and budget exist, the budget is a leaf the caller may charge, and the
 * contract fits the cluster (the core's validateJobContract, so the API accepts only what the
 * scheduler can place). One statement checks membership and writes the job and its SUBMITTED event,
 * or nothing.
 */
export async function submitJob(prisma: PrismaClient, actor: Actor, input: SubmitJob): Promise<JobView> {
  return (await submitMany(prisma, actor, [input], false))[0]!;
}

/** What kind of job a submission makes: batch (every entry point but sessions), or an interactive session. */
export interface JobKindInput {
  kind: "BATCH" | "INTERACTIVE";
  sessionServer: "SHELL" | "JUPYTER" | null;
}
const BATCH: JobKindInput = { kind: "BATCH", sessionServer: null };

/** An interactive session (sessions.ts): submitJob's checks and statement, with the job's kind. */
export async function submitSessionJob(
  prisma: PrismaClient,
  actor: Actor,
  input: SubmitJob,
  kind: JobKindInput,
): Promise<JobView> {
  return (await submitMany(prisma, actor, [input], false, true, kind))[0]!;
}

/**
 * Submit a batch of jobs (`POST /api/v1/jobs/batch`): every item gets the checks of submitJob, then
 * all are stored by one statement (multi-row INSERTs of jobs and SUBMITTED events, membership checked
 * in the same statement, one wake-up of the worker per cluster) or none is. Errors name the item:
 * field `jobs.3.gpus`, message `jobs.3: ...`. An item whose idempotencyKey is already used by the
 * caller answers with that job and is not stored again, so a retried batch creates nothing twice.
 */
export async function submitJobs(prisma: PrismaClient, actor: Actor, inputs: SubmitJob[]): Promise<JobView[]> {
  if (inputs.length === 0) throw badInput("jobs must hold at least one job", "jobs");
  return submitMany(prisma, actor, inputs, true);
}

interface Prepared {
  ord: number;
  clusterId: string;
  budgetId: string;
  name: string;
  gpus: number;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  resumable: boolean;
  priority: number;
  requeuePolicy: "REQUEUE" | "NEVER";
  gracePeriodSec: number | null;
  command: string;
  env: Record<string, string>;
  secretEnv: Record<string, string>;
  idempotencyKey: string | null;
  sentence: string;
  details: Record<string, unknown>;
  /** A job array's task indexes (null: a single job), its spec and cap. */
  indexes: number[] | null;
  arraySpec: string | null;
  arrayMaxRunning: number | null;
  maxRetries: number;
  nodeList: string[];
  excludeNodes: string[];
  after: { parentId: number; condition: "OK" | "ANY" }[];
  kind: JobKindInput["kind"];
  sessionServer: JobKindInput["sessionServer"];
}

async function submitMany(
  prisma: PrismaClient,
  actor: Actor,
  inputs: SubmitJob[],
  batch: boolean,
  retry = true,
  kind: JobKindInput = BATCH,
): Promise<JobView[]> {
  // Errors of a batch name the item (jobs.<index>); a single submission names the field alone.
  const where = (i: number, field?: string) => (batch ? `jobs.${i}${field ? `.${field}` : ""}` : field);
  const say = (i: number, message: string) => (batch ? `jobs.${i}: ${message}` : message);

  // Idempotency keys: a key the caller already used answers with its job (looked up only when given).
  const keys = inputs.map((j) => j.idempotencyKey).filter((k): k is string => !!k);
  const existing = new Map<string, JobView>();
  if (keys.length > 0) {
    const seen = new Set<string>();
    inputs.forEach((j, i) => {
      if (!j.idempotencyKey) return;
      if (seen.has(j.idempotencyKey))
        throw badInput(say(i, `idempotencyKey '${j.idempotencyKey}' appears twice in this batch`), where(i, "idempotencyKey"));
      seen.add(j.idempotencyKey);
    });
    // Keys are per user (unique on userId + key): another user's job with the same key is neither
    // found nor in the way.
    const rows = await prisma.job.findMany({
      where: { userId: actor.id, idempotencyKey: { in: keys } },
      include: jobViewInclude,
    });
    const facts = await forecastFacts(prisma, rows);
    for (const r of rows) existing.set(r.idempotencyKey!, toJobView(r, facts.get(r.id) ?? NO_FORECAST_FACTS));
    inputs.forEach((j, i) => {
      const before = j.idempotencyKey ? existing.get(j.idempotencyKey) : undefined;
      const differs = before && keyReuseDiffers(j, before);
      if (differs)
        throw conflict(
          say(
            i,
            `idempotencyKey '${j.idempotencyKey}' was used for job ${before.id}, which asked for ${differs}; a retry must repeat the request, a new job needs a new key`,
          ),
        );
    });
  }

  const views: (JobView | null)[] = inputs.map((j) => (j.idempotencyKey ? (existing.get(j.idempotencyKey) ?? null) : null));
  // Whole seconds, the scheduler's precision: a job started in the cycle of the same second gets a
  // startedAt of that second, which must never read as earlier than its submit time.
  const now = fromSec(nowSec());
  const prepared: Prepared[] = [];
  // Arrays and dependencies are checked before anything is written (bad input stores nothing).
  const arrays = inputs.map((j, i) => (views[i] ? null : expandArray(j.array, say(i, ""), where(i, "array"))));
  const totalTasks = arrays.reduce((t, a) => t + (a ? a.indexes.length : 1), 0);
  if (totalTasks > MAX_ARRAY_TASKS)
    throw badInput(
      `this submission holds ${totalTasks.toLocaleString("en-US")} jobs; at most ${MAX_ARRAY_TASKS.toLocaleString("en-US")} at once: split it`,
      "array",
    );
  const deps = await checkDependencies(
    prisma,
    actor,
    inputs.map((j, i) => (views[i] ? [] : (j.after ?? []))),
    (i, m) => badInput(say(i, m), where(i, "after")),
  );
  const budgetPaths = new Map<string, string>();
  for (let i = 0; i < inputs.length; i++) {
    if (views[i]) continue;
    const input = inputs[i]!;
    const cluster = await cachedCluster(prisma, input.cluster);
    if (!cluster) {
      const known = (await prisma.cluster.findMany({ select: { name: true }, orderBy: { name: "asc" } })).map((c) => c.name);
      throw badInput(
        say(i, `Unknown cluster '${input.cluster}'${known.length ? ` (clusters: ${known.join(", ")})` : ""}`),
        where(i, "cluster"),
      );
    }
    const budget = await leafBudget(prisma, input.budget, (m) => badInput(say(i, m), where(i, "budget")));
    budgetPaths.set(budget.id, budget.path);

    const maxRuntime = input.maxRuntime ?? null;
    const gracePeriod = input.gracePeriod ?? null;
    checkContract(
      {
        gpus: input.gpus,
        minRuntime: input.minRuntime,
        maxRuntime,
        priority: input.priority,
        resumable: input.resumable,
        requeueOnPreempt: input.requeue ?? false,
        gracePeriod,
      },
      cluster,
      (m, field) => badInput(say(i, m), batch ? where(i, field) : field),
    );
    checkNodeLists(input, await withNamedNodesNow(prisma, cluster, input.nodes ?? []), (m, field) =>
      badInput(say(i, m), batch ? where(i, field) : field),
    );

    const requeue = input.resumable || input.requeue === true;
    const array = arrays[i] ?? null;
    const name = input.name ?? defaultJobName(input.command);
    const words = explainContract({ ...input, maxRuntime, gracePeriod });
    prepared.push({
      ord: i,
      clusterId: cluster.id,
      budgetId: budget.id,
      name,
      gpus: input.gpus,
      minRuntimeSec: input.minRuntime,
      maxRuntimeSec: maxRuntime,
      resumable: input.resumable,
      priority: input.priority,
      requeuePolicy: requeue ? "REQUEUE" : "NEVER",
      gracePeriodSec: gracePeriod,
      command: input.command,
      env: input.env,
      secretEnv: input.secretEnv ?? {},
      idempotencyKey: input.idempotencyKey ?? null,
      sentence: `Submitted by ${actor.name}: ${input.gpus} GPU${input.gpus === 1 ? "" : "s"} on ${cluster.name}, charged to ${budget.path}. ${words.headline}${ruleWords(array, deps[i]!, input.retries ?? 0)}`,
      details: {
        lane: words.lane,
        gpus: input.gpus,
        minRuntime: input.minRuntime,
        maxRuntime,
        resumable: input.resumable,
        ...(array ? { array: input.array, tasks: array.indexes.length } : {}),
        ...(deps[i]!.length ? { after: deps[i] } : {}),
        ...(input.retries ? { retries: input.retries } : {}),
      },
      indexes: array?.indexes ?? null,
      arraySpec: array ? input.array!.trim() : null,
      arrayMaxRunning: array?.maxRunning ?? null,
      maxRetries: input.retries ?? 0,
      nodeList: input.nodes ?? [],
      excludeNodes: input.excludeNodes ?? [],
      after: deps[i]!,
      kind: kind.kind,
      sessionServer: kind.sessionServer,
    });
    views[i] = {
      id: 0,
      name,
      cluster: cluster.name,
      budget: budget.path,
      user: { id: actor.id, name: actor.name, email: actor.email },
      gpus: input.gpus,
      minRuntime: input.minRuntime,
      maxRuntime,
      resumable: input.resumable,
      requeue,
      priority: input.priority,
      gracePeriod,
      command: input.command,
      env: input.env,
      secretEnvNames: Object.keys(input.secretEnv ?? {}).sort(),
      state: "PENDING",
      submittedAt: now.toISOString(),
      queuedAt: now.toISOString(),
      startedAt: null,
      protectedUntil: null,
      graceUntil: null,
      finishedAt: null,
      exitCode: null,
      requeueCount: 0,
      heldBy: null,
      squattingSince: null,
      lastCheckpointAt: null,
      estimatedStartAt: null,
      estimatedStartWhy: null,
      estimatedStartAfter: [],
      estimatedAt: null,
      reason: null,
      array: array ? { id: 0, index: array.indexes[0]!, spec: input.array!.trim() } : null,
      after: deps[i]!.map((d) => ({ jobId: d.parentId, condition: d.condition })),
      nodes: input.nodes ?? [],
      excludeNodes: input.excludeNodes ?? [],
      retries: { max: input.retries ?? 0, used: 0 },
      kind: kind.kind,
      session: null,
      lane: laneOf({ gpus: input.gpus, minRuntimeSec: input.minRuntime, maxRuntimeSec: maxRuntime }),
    };
    if (array) views[i]!.env = { ...input.env, TRANCHE_ARRAY_INDEX: String(array.indexes[0]) };
  }
  if (prepared.length === 0) return views as JobView[];

  // One statement, so one round trip and atomic: membership (SPEC §6: a researcher charges only budgets
  // they belong to; admins any) is checked for every item and, when one is refused, nothing is written;
  // otherwise ids are drawn in item order and the jobs and their SUBMITTED events are inserted as one
  // multi-row INSERT each. The worker is woken after the commit (wakeWorker): a NOTIFY inside the
  // transaction would serialise the commits of concurrent submissions. It runs after the cap's count of
  // the actor's waiting jobs, in its transaction (waiting-cap.ts).
  let rows: { ord: number; id: number | null; refused: boolean }[];
  const adding = prepared.reduce((n, p) => n + (p.indexes?.length ?? 1), 0);
  try {
    rows = await withinWaitingRoom(
      prisma,
      actor,
      adding,
      (db) => db.$queryRaw<{ ord: number; id: number | null; refused: boolean }[]>`
      WITH input AS MATERIALIZED (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(prepared)}::jsonb) AS x(
          ord int, "clusterId" text, "budgetId" text, name text, gpus int, "minRuntimeSec" int, "maxRuntimeSec" int,
          resumable boolean, priority int, "requeuePolicy" text, "gracePeriodSec" int, command text, env jsonb,
          "secretEnv" jsonb, "idempotencyKey" text, sentence text, details jsonb, indexes int[], "arraySpec" text,
          "arrayMaxRunning" int, "maxRetries" int, "nodeList" text[], "excludeNodes" text[], after jsonb, kind text,
          "sessionServer" text)
      ), refused AS MATERIALIZED (
        SELECT i.ord FROM input i
        WHERE NOT ${actor.role === "ADMIN"}
          AND NOT EXISTS (SELECT 1 FROM budget_member m WHERE m."budgetId" = i."budgetId" AND m."userId" = ${actor.id})
      ), drawn AS MATERIALIZED (
        -- One row per job: an array's tasks in index order; ids drawn in that order.
        SELECT t.ord, t.idx, t.n, nextval('job_id_seq'::regclass)::int AS id
        FROM (SELECT i.ord, x.idx, x.n FROM input i
                CROSS JOIN LATERAL unnest(COALESCE(i.indexes, ARRAY[NULL]::int[])) WITH ORDINALITY AS x(idx, n)
              ORDER BY i.ord, x.n) t
        WHERE NOT EXISTS (SELECT 1 FROM refused)
      ), ids AS MATERIALIZED (
        SELECT d.*, CASE WHEN d.idx IS NOT NULL THEN min(d.id) OVER (PARTITION BY d.ord) END AS "arrayJobId" FROM drawn d
      ), j AS (
        INSERT INTO job (id, "clusterId", "budgetId", "userId", name, gpus, "minRuntimeSec", "maxRuntimeSec", resumable, priority,
                         "requeuePolicy", "gracePeriodSec", command, env, "secretEnv", state, "submittedAt", "queuedAt", "idempotencyKey",
                         "arrayJobId", "arrayIndex", "arraySpec", "arrayMaxRunning", "maxRetries", "nodeList", "excludeNodes", kind,
                         "sessionServer", "createdAt", "updatedAt")
        SELECT ids.id, i."clusterId", i."budgetId", ${actor.id}, i.name, i.gpus, i."minRuntimeSec", i."maxRuntimeSec", i.resumable,
               i.priority, i."requeuePolicy"::"RequeuePolicy", i."gracePeriodSec", i.command,
               CASE WHEN ids.idx IS NULL THEN i.env
                    ELSE i.env || jsonb_build_object('TRANCHE_ARRAY_INDEX', ids.idx::text, 'TRANCHE_ARRAY_JOB_ID', ids."arrayJobId"::text) END,
               i."secretEnv", 'PENDING'::"JobState", ${now}, ${now}, CASE WHEN ids.n = 1 THEN i."idempotencyKey" END,
               ids."arrayJobId", ids.idx, i."arraySpec", i."arrayMaxRunning", i."maxRetries", i."nodeList", i."excludeNodes", i.kind::"JobKind",
               i."sessionServer"::"SessionServer", ${now}, ${now}
        FROM input i JOIN ids USING (ord)
        RETURNING id
      ), dep AS (
        INSERT INTO job_dependency ("jobId", "parentId", condition)
        SELECT ids.id, (a->>'parentId')::int, a->>'condition'
        FROM ids JOIN input i USING (ord) CROSS JOIN LATERAL jsonb_array_elements(i.after) a
      ), e AS (
        INSERT INTO job_event ("jobId", at, kind, sentence, details, "actorKind", "actorId")
        SELECT j.id, ${now}, ${"SUBMITTED" satisfies JobEventKind}::text, i.sentence,
               CASE WHEN ids.idx IS NULL THEN i.details ELSE i.details || jsonb_build_object('arrayIndex', ids.idx) END,
               'USER'::"ActorKind", ${actor.id}
        FROM j JOIN ids USING (id) JOIN input i USING (ord)
      )
      SELECT ids.ord, min(ids.id)::int AS id, false AS refused FROM ids GROUP BY ids.ord
      UNION ALL
      SELECT ord, NULL, true FROM refused
      ORDER BY ord`,
    );
  } catch (e) {
    // A concurrent submission with the same idempotency key won the race: answer with its job.
    if (retry && keys.length > 0 && /idempotencyKey|unique/i.test(String(e)))
      return submitMany(prisma, actor, inputs, batch, false, kind);
    throw e;
  }
  const refused = rows.find((r) => r.refused);
  if (refused) {
    const i = Number(refused.ord);
    const path = budgetPaths.get(prepared.find((p) => p.ord === i)!.budgetId)!;
    throw new DomainError(
      "FORBIDDEN",
      say(i, `You may not charge budget '${path}': you are not one of its members`),
      batch ? where(i, "budget") : undefined,
    );
  }
  for (const r of rows) {
    const v = views[Number(r.ord)]!;
    v.id = Number(r.id);
    if (v.array) {
      v.array.id = v.id;
      v.env = { ...v.env, TRANCHE_ARRAY_JOB_ID: String(v.id) };
    }
  }
  for (const clusterId of new Set(prepared.map((p) => p.clusterId))) wakeWorker(prisma, clusterId);
  return views as JobView[];
}

/**
 * Wake the worker (NOTIFY tranche_jobs) after a submission, best effort: it also cycles on its own
 * period. At most one NOTIFY per cluster per WAKE_MS from this process: a burst of submissions sends
 * one at once and one at the end of the window, and the worker coalesces them into one cycle anyway.
 */
const WAKE_MS = 50;
const wakes = new Map<string, { timer: NodeJS.Timeout; again: boolean }>();
function wakeWorker(prisma: PrismaClient, clusterId: string): void {
  const open = wakes.get(clusterId);
  if (open) {
    open.again = true;
    return;
  }
  const send = () => void prisma.$executeRaw`SELECT pg_notify('tranche_jobs', ${clusterId})`.catch(() => undefined);
  send();
  const w = {
    again: false,
    timer: setTimeout(() => {
      wakes.delete(clusterId);
      if (w.again) wakeWorker(prisma, clusterId);
    }, WAKE_MS),
  };
  w.timer.unref();
  wakes.set(clusterId, w);
}

/**
 * Clusters and budget paths change rarely and submit is the hot path of scripts: remember them for a
 * few seconds per process. Membership (who may charge) is always read fresh.
 */
const CACHE_MS = 5_000;
type CachedCluster = {
  id: string;
  name: string;
  maxMinRuntimeSec: number;
  nodes: { name: string; gpuCount: number }[];
  /** Names of its retired nodes: a list naming one is refused in those words (node-lists.ts). */
  retired: string[];
} | null;
type CachedBudget = { id: string; path: string; children: number } | null;
interface NameCache {
  generation: number;
  clusters: Map<string, { until: number; value: CachedCluster }>;
  budgets: Map<string, { until: number; value: CachedBudget }>;
}
/** Per database client: one process may talk to several databases (tests), whose ids differ. */
const caches = new WeakMap<PrismaClient, NameCache>();
let generation = 0;
function remember(prisma: PrismaClient): NameCache {
  let c = caches.get(prisma);
  if (!c || c.generation !== generation) caches.set(prisma, (c = { generation, clusters: new Map(), budgets: new Map() }));
  return c;
}

/** Forget remembered names at once: administration renamed, moved, archived or created something. */
export function forgetCachedNames(): void {
  generation++;
}

export async function cachedCluster(prisma: PrismaClient, name: string) {
  const clusterCache = remember(prisma).clusters;
  const hit = clusterCache.get(name);
  if (hit && hit.until > Date.now()) return hit.value;
  const row = await prisma.cluster.findUnique({
    where: { name },
    select: { id: true, name: true, maxMinRuntimeSec: true, nodes: { select: { name: true, gpuCount: true, state: true } } },
  });
  const c: CachedCluster = row && {
    id: row.id,
    name: row.name,
    maxMinRuntimeSec: row.maxMinRuntimeSec,
    nodes: row.nodes.filter(inService).map((n) => ({ name: n.name, gpuCount: n.gpuCount })),
    retired: row.nodes.filter((n) => !inService(n)).map((n) => n.name),
  };
  if (clusterCache.size > 1000) clusterCache.clear();
  clusterCache.set(name, { until: Date.now() + CACHE_MS, value: c });
  return c;
}

async function cachedBudget(prisma: PrismaClient, path: string) {
  const budgetCache = remember(prisma).budgets;
  const hit = budgetCache.get(path);
  if (hit && hit.until > Date.now()) return hit.value;
  const b = await prisma.budgetTreeNode.findUnique({
    where: { path },
    select: { id: true, path: true, archivedAt: true, _count: { select: { children: { where: { archivedAt: null } } } } },
  });
  const value = b && !b.archivedAt ? { id: b.id, path: b.path, children: b._count.children } : null;
  if (budgetCache.size > 10_000) budgetCache.clear();
  budgetCache.set(path, { until: Date.now() + CACHE_MS, value });
  return value;
}

/** A budget a job may be charged to, by its path: a leaf, not archived; else `fail` says why. */
export async function leafBudget(
  prisma: PrismaClient,
  path: string,
  fail: (message: string) => DomainError,
): Promise<{ id: string; path: string }> {
  const budget = await cachedBudget(prisma, path);
  if (!budget) throw fail(`Unknown budget '${path}'`);
  if (budget.children > 0) throw fail(`'${path}' is not a budget but a group of budgets; charge one of its leaves`);
  return budget;
}

/**
 * A contract against its cluster's nodes and bounds: the core's validateJobContract, so the API takes
 * only what the scheduler can place. `fail` gets its sentences, in people's words, and the first field
 * they name (REST's error.field, the form's box).
 */
export function checkContract(
  contract: Parameters<typeof validateJobContract>[0],
  cluster: NonNullable<CachedCluster>,
  fail: (message: string, field: string | undefined) => DomainError,
): void {
  const check = validateJobContract(contract, cluster.nodes, defaultPolicy, { maxMinRuntime: cluster.maxMinRuntimeSec });
  if (check.ok) return;
  const e = fail(check.errors.join("; "), check.fields?.[0]);
  if (check.errors.length < 2) throw e;
  // Each problem at its field too, so a form shows every one beside its box from one answer.
  const issues = check.errors.map((m, k) => ({ path: fail(m, check.fields?.[k]).field ?? "", message: m }));
  throw new DomainError(e.code, e.message, e.field, issues);
}

/** " Array 0-99%10: 100 tasks, at most 10 at once. After job 81 succeeds. Retried up to 2 times." */
function ruleWords(
  array: { indexes: number[]; maxRunning: number | null } | null,
  after: { parentId: number; condition: "OK" | "ANY" }[],
  retries: number,
): string {
  const out: string[] = [];
  if (array)
    out.push(
      `Array of ${array.indexes.length} task${array.indexes.length === 1 ? "" : "s"}${array.maxRunning !== null ? `, at most ${array.maxRunning} running at once` : ""}.`,
    );
  if (after.length > 0)
    out.push(
      `Starts after ${after.map((d) => `job ${d.parentId} ${d.condition === "OK" ? "succeeds" : "ends"}`).join(" and ")}.`,
    );
  if (retries > 0) out.push(`Retried up to ${retries} time${retries === 1 ? "" : "s"} if it exits with an error.`);
  return out.length ? ` ${out.join(" ")}` : "";
}

/**
 * What a reused idempotency key's request changes in the job it names, in words ("4 GPUs, not 1"), or
 * null when it is that job's request again. A retry that answers with the old job as if it were the
 * new one would leave a client believing a different job was submitted.
 */
function keyReuseDiffers(j: SubmitJob, before: JobView): string | null {
  const was = (what: string, now: unknown, then: unknown) => `${what} ${String(then)}, not ${String(now)}`;
  if (j.cluster.trim() !== before.cluster) return was("cluster", j.cluster, before.cluster);
  if (j.budget.trim() !== before.budget) return was("budget", j.budget, before.budget);
  if (j.gpus !== before.gpus) return was("gpus", j.gpus, before.gpus);
  if (j.minRuntime !== before.minRuntime) return was("minRuntime (s)", j.minRuntime, before.minRuntime);
  if ((j.maxRuntime ?? null) !== before.maxRuntime)
    return was("maxRuntime (s)", j.maxRuntime ?? "none", before.maxRuntime ?? "none");
  if (j.command !== undefined && j.command !== before.command) return "another command";
  return null;
}
