import { Prisma, type PrismaClient, type Tx } from "@tranche/db";
import {
  PPM,
  computeEntitlements,
  withWindowAggregates,
  type AllocationChange,
  type BudgetTreeNode,
  type CapacityChange,
  type ClusterSnapshot,
  type NodeHealth,
  type NodeState,
  type PendingJob,
  type PolicyConfig,
  type RunningJob,
} from "@tranche/scheduler-core";
import { addJobRules } from "./load-job-rules";
import { resolveClusterPolicy } from "./policy";
import { toSec, toSecOrNull } from "./time";
import { sentenceNameSql } from "../user-name";
import { holdOf, holdSql, type HoldTuple } from "./hold-facts";

/**
 * Phase 1 of a cycle: read one cluster's state from Postgres into the core's ClusterSnapshot.
 *
 * - nodes as they are (the core decides DOWN / DRAINING / REPAIR transitions);
 * - the whole budget tree with this cluster's allocations, usage from the hourly usage ledger (the
 *   first hour of the window prorated) plus the not-yet-charged tail of open charged segments, and
 *   entitlement integrated from the allocation history and the hourly capacity ledger;
 * - running jobs (RUNNING and STOPPING) from their open run segment and its placements;
 * - pending jobs (PENDING, and HELD so they get their HELD reason).
 *
 * Raw SQL on purpose: 10,000 pending jobs and 1,024 nodes load in tens of milliseconds.
 */

type Db = PrismaClient | Tx;

/** What the plan applier needs beyond the snapshot (to diff reasons and find segments). */
export interface CycleInput {
  snapshot: ClusterSnapshot;
  policy: PolicyConfig;
  now: number;
  /** job id -> its open run segment (running and stopping jobs). */
  segments: Map<string, { segmentId: bigint; charged: boolean; endReason: string | null }>;
  /**
   * Waiting job id -> the revision this snapshot read (counted up by a change of its values, update-job.ts,
   * and by a hold or a release, job-actions.ts and array-hold.ts). The plan is applied only to the jobs
   * still at that revision (apply-plan.ts): one changed meanwhile waits for the next cycle, decided on its
   * new values; nor is a reason or start forecast made from this snapshot stored on it (write-reasons.ts,
   * start-forecast.ts). Kept out of the core's snapshot: the fence is the runtime's.
   */
  revisions: Map<string, number>;
  /** job id -> the reason currently stored (so unchanged reasons are not rewritten). */
  storedReasons: Map<string, { code: string | null; position: number | null; cycleId: bigint | null }>;
  nodeNames: Map<string, string>;
  /** Healthy and total GPUs now (capacity ledger). */
  healthyGpus: number;
  totalGpus: number;
  /** Time of the previous cycle of this cluster (capacity ledger integration), seconds. */
  previousCycleAt: number | null;
  /** Id of the previous cycle of this cluster. */
  lastCycleId: bigint | null;
}

interface NodeRow {
  id: string;
  name: string;
  gpuCount: number;
  state: NodeState;
  health: NodeHealth;
  lastHeartbeatAt: Date | null;
  stateChangedAt: Date;
  drainAt: Date | null;
  drainReason: string | null;
  drainPlannedBy: string | null;
}
interface TreeRow {
  id: string;
  name: string;
  parentId: string | null;
  ppm: number | null;
}
interface RunningRow {
  id: number;
  name: string;
  budgetId: string;
  userId: string;
  userName: string;
  gpus: number;
  minRuntimeSec: number;
  maxRuntimeSec: number | null;
  resumable: boolean;
  priority: number;
  requeuePolicy: string;
  gracePeriodSec: number | null;
  state: string;
  submittedAt: Date;
  graceUntil: Date | null;
  squattingSince: Date | null;
  lastCheckpointAt: Date | null;
  segmentId: bigint;
  segStartedAt: Date;
  charged: boolean;
  chargedUntil: Date | null;
  endReason: string | null;
  placements: { nodeId: string; gpuIndexes: number[] }[] | null;
}

// The user's display name comes along (one join) so sentences name people, not database ids; capped
// (sentenceNameSql), as it repeats once per job: an overlong stored name must not blow up the cycle's
// text. Never the e-mail, which sentences would show every reader.
const PENDING_SQL = `
  SELECT json_agg(json_build_array(j.id, j.name, j."budgetId", j."userId", j.gpus, j."minRuntimeSec", j."maxRuntimeSec", j.resumable,
         j.priority, j."requeuePolicy", j."gracePeriodSec", j.state, floor(extract(epoch FROM j."submittedAt")),
         floor(extract(epoch FROM j."queuedAt")), j."requeueCount", j."reasonCode", j."queuePosition", j."reasonCycleId"::text,
         ${sentenceNameSql("u")}, j.revision, ${holdSql("j")}))::text AS rows
  FROM job j JOIN "user" u ON u.id = j."userId" WHERE j."clusterId" = $1 AND j.state IN ('PENDING', 'HELD')`;

/** The healthy-capacity rule of the measures: READY/CORDONED/DRAINING nodes that report healthy. */
function isHealthy(n: Pick<NodeRow, "state" | "health">): boolean {
  return n.health === "HEALTHY" && n.state !== "DOWN" && n.state !== "REPAIR";
}

/**
 * A plain SQL executor (node-postgres `pool.query`), used when given for the largest read (pending jobs):
 * it skips the ORM's per-query overhead. Optional: everything works through Prisma alone.
 */
export type RawQuery = (text: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/** The rows behind the window aggregates: tree with allocations, allocation history, capacity and usage ledgers. */
export interface WindowRows {
  treeRows: TreeRow[];
  history: { treeNodeId: string; at: Date; toPpm: number }[];
  /** Healthy and total GPU-seconds recorded per hour (total tells when a first hour began). */
  capacityRows: { hourStart: Date; healthy: number; total: number }[];
  usageRows: { budgetId: string; gpuSeconds: number }[];
}

async function windowRows(db: Db, clusterId: string, now: number, policy: PolicyConfig): Promise<WindowRows> {
  const nowDate = new Date(now * 1000);
  const windowStart = now - policy.lookbackWindow;
  const windowStartDate = new Date(windowStart * 1000);
  const [treeRows, history, capacityRows, usageRows] = await Promise.all([
    db.$queryRaw<TreeRow[]>`
      SELECT t.id, t.name, t."parentId", a.ppm
      FROM budget_tree_node t LEFT JOIN allocation a ON a."treeNodeId" = t.id AND a."clusterId" = ${clusterId}
      WHERE t."archivedAt" IS NULL`,
    db.$queryRaw<{ treeNodeId: string; at: Date; toPpm: number }[]>`
      SELECT "treeNodeId", at, "toPpm" FROM allocation_change
      WHERE "clusterId" = ${clusterId} AND at <= ${nowDate} ORDER BY at, id`,
    db.$queryRaw<{ hourStart: Date; healthy: number; total: number }[]>`
      SELECT "hourStart", "healthyGpuSeconds"::float8 AS healthy, "totalGpuSeconds"::float8 AS total FROM capacity_ledger
      WHERE "clusterId" = ${clusterId} AND "hourStart" > ${new Date((windowStart - 3600) * 1000)} AND "hourStart" <= ${nowDate}
      ORDER BY "hourStart"`,
    // The first hour of the window counts only its part inside the window.
    db.$queryRaw<{ budgetId: string; gpuSeconds: number }[]>`
      SELECT "budgetId", SUM(CASE WHEN "hourStart" < ${windowStartDate}
          THEN "gpuSeconds"::float8 * GREATEST(0, EXTRACT(EPOCH FROM ("hourStart" + interval '1 hour' - ${windowStartDate}::timestamptz)) / 3600.0)
          ELSE "gpuSeconds"::float8 END)::float8 AS "gpuSeconds"
      FROM usage_ledger
      WHERE "clusterId" = ${clusterId} AND "hourStart" > ${new Date((windowStart - 3600) * 1000)}
      GROUP BY "budgetId"`,
  ]);
  return { treeRows, history, capacityRows, usageRows };
}

/**
 * The budget tree with every node's usage and entitlement over the lookback window ending at `now`
 * (SPEC §2), as the worker hands it to the core: usage from the hourly usage ledger (the first hour of
 * the window prorated) plus the not-yet-charged tail of open charged segments (`open`), entitlement
 * integrated by the core's computeEntitlements from the allocation history and the hourly capacity
 * ledger (the current hour at `healthyGpus`).
 */
export function windowTree(
  rows: WindowRows,
  opts: {
    now: number;
    policy: PolicyConfig;
    healthyGpus: number;
    totalGpus: number;
    open: readonly { budgetId: string; gpus: number; charged: boolean; segStartedAt: Date; chargedUntil: Date | null }[];
  },
): { tree: BudgetTreeNode[]; allocationHistory: AllocationChange[]; accruedEntitlement: Record<string, number> } {
  const { treeRows, history, capacityRows, usageRows } = rows;
  const { now, policy, healthyGpus } = opts;
  const windowStart = now - policy.lookbackWindow;
  const shape = treeRows.map((t) => ({
    id: t.id,
    name: t.name,
    parentId: t.parentId,
    allocationPpm: t.parentId === null ? PPM : (t.ppm ?? 0),
  }));
  const usage: Record<string, number> = {};
  for (const u of usageRows) usage[u.budgetId] = (usage[u.budgetId] ?? 0) + Number(u.gpuSeconds);
  // Not yet charged tail of open charged segments (the ledger is charged up to `chargedUntil`).
  for (const r of opts.open) {
    if (!r.charged) continue;
    const from = Math.max(toSec(r.chargedUntil ?? r.segStartedAt), toSec(r.segStartedAt), windowStart);
    if (now > from) usage[r.budgetId] = (usage[r.budgetId] ?? 0) + r.gpus * (now - from);
  }
  // Leaves carry usage; the core sums parents itself. Propagate anyway for the ratios shown.
  const parentOf = new Map(shape.map((n) => [n.id, n.parentId]));
  const leafUsage: Record<string, number> = {};
  for (const [id, v] of Object.entries(usage)) {
    let cur: string | null | undefined = id;
    const seen = new Set<string>();
    while (cur && !seen.has(cur)) {
      seen.add(cur);
      leafUsage[cur] = (leafUsage[cur] ?? 0) + v;
      cur = parentOf.get(cur) ?? null;
    }
  }
  const allocationHistory: AllocationChange[] = history.map((h) => ({
    treeNodeId: h.treeNodeId,
    at: toSec(h.at),
    allocationPpm: h.toPpm,
  }));
  const capacity = capacityChanges(capacityRows, { now, windowStart, healthyGpus, totalGpus: opts.totalGpus });
  const entitlement = computeEntitlements(shape, allocationHistory, capacity, now, policy);
  // What the budgets earned so far, without the young window's floor (which only keeps ratios finite).
  const accrued = computeEntitlements(shape, allocationHistory, capacity, now, { ...policy, projectionHorizon: 0 });
  const tree = withWindowAggregates(shape, leafUsage, entitlement);
  return { tree, allocationHistory, accruedEntitlement: accrued };
}

/**
 * Hourly capacity ledger rows as piecewise-constant healthy capacity, the current hour at today's value.
 * The ledger's first hour inside the window is partial: it holds only the seconds since the worker
 * began (a new cluster, or one whose worker was off). That hour starts when its recorded seconds
 * began, not at the top of the hour, so a cluster 4 minutes old has 4 minutes of capacity, and its
 * young window (SPEC §2) runs from its real start.
 */
export function capacityChanges(
  rows: readonly { hourStart: Date; healthy: number; total: number }[],
  opts: { now: number; windowStart: number; healthyGpus: number; totalGpus: number },
): CapacityChange[] {
  const { now, windowStart, healthyGpus, totalGpus } = opts;
  const currentHour = now - (now % 3600);
  const capacity: CapacityChange[] = rows.map((c) => ({ at: toSec(c.hourStart), healthyGpus: Number(c.healthy) / 3600 }));
  const first = rows[0];
  if (first && totalGpus > 0) {
    const start = capacity[0]!.at;
    const end = Math.min(start + 3600, now);
    const recorded = Math.min(end - start, Math.max(0, Number(first.total) / totalGpus));
    if (recorded > 0 && recorded < end - start) {
      capacity[0] = { at: Math.max(end - recorded, windowStart), healthyGpus: Number(first.healthy) / recorded };
    }
  }
  const lastCap = capacity[capacity.length - 1];
  if (lastCap && lastCap.at >= currentHour) lastCap.healthyGpus = healthyGpus;
  else if (lastCap || capacity.length === 0) capacity.push({ at: lastCap ? currentHour : now, healthyGpus });
  return capacity;
}

/**
 * One cluster's budget tree with its window aggregates at `now`, exactly as the worker's cycle would
 * load it (same rows, same code), for views that need the core's usage and entitlement without
 * loading jobs: the charts' usage vs entitlement, the budgets page's entitlement earned so far. Also
 * returns the allocation history it used.
 */
export async function loadWindowTree(
  db: Db,
  clusterId: string,
  now: number,
): Promise<{
  tree: BudgetTreeNode[];
  allocationHistory: AllocationChange[];
  accruedEntitlement: Record<string, number>;
  policy: PolicyConfig;
  healthyGpus: number;
}> {
  const cluster = await db.cluster.findUnique({ where: { id: clusterId } });
  if (!cluster) throw new Error(`cluster ${clusterId} does not exist`);
  const policy = resolveClusterPolicy(cluster, {});
  const [nodes, rows, open] = await Promise.all([
    db.$queryRaw<Pick<NodeRow, "gpuCount" | "state" | "health">[]>`
      SELECT "gpuCount", state::text AS state, health::text AS health FROM node WHERE "clusterId" = ${clusterId} AND state <> 'RETIRED'`,
    windowRows(db, clusterId, now, policy),
    db.$queryRaw<{ budgetId: string; gpus: number; charged: boolean; segStartedAt: Date; chargedUntil: Date | null }[]>`
      SELECT s."budgetId", s.gpus, s.charged, s."startedAt" AS "segStartedAt", s."chargedUntil"
      FROM run_segment s JOIN job j ON j.id = s."jobId"
      WHERE s."clusterId" = ${clusterId} AND s."endedAt" IS NULL AND s.charged AND j.state IN ('RUNNING', 'STOPPING')`,
  ]);
  const healthyGpus = nodes.filter(isHealthy).reduce((sum, n) => sum + n.gpuCount, 0);
  const totalGpus = nodes.reduce((sum, n) => sum + n.gpuCount, 0);
  return { ...windowTree(rows, { now, policy, healthyGpus, totalGpus, open }), policy, healthyGpus };
}

export async function loadCycleInput(
  db: Db,
  clusterId: string,
  now: number,
  overrides: Partial<PolicyConfig> = {},
  raw?: RawQuery,
): Promise<CycleInput> {
  const cluster = await db.cluster.findUnique({ where: { id: clusterId } });
  if (!cluster) throw new Error(`cluster ${clusterId} does not exist`);
  const policy = resolveClusterPolicy(cluster, overrides);

  const [nodes, window, runningRows, pendingRows, lastCycle] = await Promise.all([
    db.$queryRaw<NodeRow[]>`
      SELECT n.id, n.name, n."gpuCount", n.state::text AS state, n.health::text AS health, n."lastHeartbeatAt", n."stateChangedAt",
             n."drainAt", n."drainReason", CASE WHEN p.id IS NULL THEN NULL ELSE ${Prisma.raw(sentenceNameSql("p"))} END AS "drainPlannedBy"
      -- A retired node is kept for its history only: the core never sees it, so no rule needs to know of it.
      FROM node n LEFT JOIN "user" p ON p.id = n."drainPlannedById"
      WHERE n."clusterId" = ${clusterId} AND n.state <> 'RETIRED'`,
    windowRows(db, clusterId, now, policy),
    db.$queryRaw<RunningRow[]>`
      SELECT j.id, j.name, j."budgetId", j."userId", ${Prisma.raw(sentenceNameSql("u"))} AS "userName", j.gpus, j."minRuntimeSec", j."maxRuntimeSec", j.resumable, j.priority,
             j."requeuePolicy"::text AS "requeuePolicy", j."gracePeriodSec", j.state::text AS state, j."submittedAt", j."graceUntil",
             j."squattingSince", j."lastCheckpointAt",
             s.id AS "segmentId", s."startedAt" AS "segStartedAt", s.charged, s."chargedUntil", s."endReason"::text AS "endReason",
             (SELECT json_agg(json_build_object('nodeId', p."nodeId", 'gpuIndexes', p."gpuIndexes") ORDER BY p."nodeId")
                FROM segment_placement p WHERE p."segmentId" = s.id) AS placements
      FROM job j JOIN run_segment s ON s."jobId" = j.id AND s."endedAt" IS NULL JOIN "user" u ON u.id = j."userId"
      WHERE j."clusterId" = ${clusterId} AND j.state IN ('RUNNING', 'STOPPING')
        -- R12: a moved job's old copy (still winding down) is not its run; the newest open segment is.
        AND NOT EXISTS (SELECT 1 FROM run_segment n WHERE n."jobId" = j.id AND n."endedAt" IS NULL AND n.id > s.id)`,
    // 10,000 pending rows: one JSON array is ~2x faster through the driver than 10,000 row objects.
    raw
      ? raw(PENDING_SQL, [clusterId]).then((r) => r.rows as { rows: string | null }[])
      : db.$queryRawUnsafe<{ rows: string | null }[]>(PENDING_SQL, clusterId),
    db.$queryRaw<{ id: bigint; at: Date }[]>`
      SELECT id, at FROM scheduling_cycle WHERE "clusterId" = ${clusterId} ORDER BY at DESC LIMIT 1`,
  ]);

  let healthyGpus = 0;
  let totalGpus = 0;
  for (const n of nodes) {
    totalGpus += n.gpuCount;
    if (isHealthy(n)) healthyGpus += n.gpuCount;
  }
  const { tree } = windowTree(window, { now, policy, healthyGpus, totalGpus, open: runningRows });

  // --- jobs -------------------------------------------------------------------------------------
  const segments: CycleInput["segments"] = new Map();
  const running: RunningJob[] = runningRows.map((r) => {
    const id = String(r.id);
    segments.set(id, { segmentId: r.segmentId, charged: r.charged, endReason: r.endReason });
    return {
      id,
      name: r.name,
      budgetId: r.budgetId,
      userId: r.userId,
      userName: r.userName,
      submittedAt: toSec(r.submittedAt),
      gpus: r.gpus,
      minRuntime: r.minRuntimeSec,
      maxRuntime: r.maxRuntimeSec,
      priority: r.priority,
      resumable: r.resumable,
      requeueOnPreempt: r.requeuePolicy === "REQUEUE",
      gracePeriod: r.gracePeriodSec,
      startedAt: toSec(r.segStartedAt),
      placement: (r.placements ?? []).map((p) => ({ nodeId: p.nodeId, gpuIndexes: p.gpuIndexes })),
      charged: r.charged,
      stopping: r.state === "STOPPING" ? { byJobId: null, graceUntil: toSecOrNull(r.graceUntil) ?? now } : null,
      squattingSince: toSecOrNull(r.squattingSince),
      lastCheckpointAt: toSecOrNull(r.lastCheckpointAt),
    };
  });
  const storedReasons: CycleInput["storedReasons"] = new Map();
  const revisions: CycleInput["revisions"] = new Map();
  type PendingTuple = [
    number,
    string,
    string,
    string,
    number,
    number,
    number | null,
    boolean,
    number,
    string,
    number | null,
    string,
    number,
    number,
    number,
    string | null,
    number | null,
    string | null,
    string,
    number,
    HoldTuple,
  ];
  const tuples = JSON.parse(pendingRows[0]?.rows ?? "[]") as PendingTuple[];
  const pending: PendingJob[] = tuples.map((r) => {
    const [
      jobId,
      name,
      budgetId,
      userId,
      gpus,
      minRuntime,
      maxRuntime,
      resumable,
      priority,
      requeuePolicy,
      gracePeriod,
      state,
      submittedAt,
      queuedAt,
      requeueCount,
      reasonCode,
      queuePosition,
      reasonCycleId,
      userName,
      revision,
      hold,
    ] = r;
    const id = String(jobId);
    revisions.set(id, revision);
    storedReasons.set(id, {
      code: reasonCode,
      position: queuePosition,
      cycleId: reasonCycleId === null ? null : BigInt(reasonCycleId),
    });
    return {
      id,
      name,
      budgetId,
      userId,
      userName,
      submittedAt,
      gpus,
      minRuntime,
      maxRuntime,
      priority,
      resumable,
      requeueOnPreempt: requeuePolicy === "REQUEUE",
      gracePeriod,
      requeuedAt: requeueCount > 0 ? queuedAt : null,
      held: state === "HELD",
      // Only a held job carries one (most pending jobs are not).
      ...(hold === null ? {} : { hold: holdOf(hold) }),
    };
  });

  await addJobRules(db, clusterId, { tree, running, pending });
  return {
    snapshot: {
      cluster: { id: cluster.id, name: cluster.name, gpuType: cluster.gpuType, maxMinRuntime: cluster.maxMinRuntimeSec },
      nodes: nodes.map((n) => ({
        id: n.id,
        name: n.name,
        gpuCount: n.gpuCount,
        state: n.state,
        health: n.health,
        lastHeartbeatAt: toSecOrNull(n.lastHeartbeatAt),
        stateChangedAt: toSec(n.stateChangedAt),
        // R8's planned drain: the core keeps work that could not leave by then off the node, and drains it then.
        ...(n.drainAt !== null
          ? { drainAt: toSec(n.drainAt), drainReason: n.drainReason, drainPlannedBy: n.drainPlannedBy }
          : {}),
      })),
      tree,
      running,
      pending,
    },
    policy,
    now,
    segments,
    revisions,
    storedReasons,
    nodeNames: new Map(nodes.map((n) => [n.id, n.name])),
    healthyGpus,
    totalGpus,
    previousCycleAt: lastCycle[0] ? toSec(lastCycle[0].at) : null,
    lastCycleId: lastCycle[0]?.id ?? null,
  };
}

/**
 * One cluster's snapshot as the worker sees it at `nowSeconds` (also for what-if views: edit it and
 * call the core's runCycle; nothing is written).
 */
export async function loadClusterSnapshot(prisma: Db, clusterId: string, nowSeconds: number): Promise<ClusterSnapshot> {
  return (await loadCycleInput(prisma, clusterId, nowSeconds)).snapshot;
}
