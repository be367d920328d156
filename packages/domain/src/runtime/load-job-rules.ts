import { Prisma, type PrismaClient, type Tx } from "@tranche/db";
import type { ClusterSnapshot, DependencyState, JobDependency } from "@tranche/scheduler-core";
import { parentStateSql } from "./dependency-state";

type Db = PrismaClient | Tx;

/**
 * Each dependency of the cluster's waiting jobs, with where its parent stands (dependency-state.ts, its
 * array's tasks included). Each parent is read once, however many jobs wait for it. Read once per
 * dependency, Postgres kept a repeated parent's answer only when its estimates told it to (a Memoize
 * node): on a database whose statistics lag, an array of 500 tasks waiting for one of 1,000 read
 * 501,500 rows, and one person's 9,001 waiting for 10,000 would read 90 million each cycle (a security audit).
 */
export const waitingDependenciesSql = (clusterId: string): Prisma.Sql => Prisma.sql`
  WITH d AS MATERIALIZED (
    SELECT d."jobId", d."parentId", d.condition
    FROM job_dependency d JOIN job j ON j.id = d."jobId"
    WHERE j."clusterId" = ${clusterId} AND j.state IN ('PENDING', 'HELD')
  ), parent AS MATERIALIZED (
    SELECT p.id, s.state
    FROM (SELECT DISTINCT "parentId" AS id FROM d) p
    CROSS JOIN LATERAL (${parentStateSql(Prisma.raw("p.id"))}) s
  )
  SELECT d."jobId", d."parentId", d.condition, parent.state FROM d JOIN parent ON parent.id = d."parentId"`;

/**
 * Phase 1, second part: what the core's job rules (scheduler-core cycle/job-rules.ts) read beside the
 * snapshot — the array and cap of every active task, where each pending job's dependencies stand,
 * the budgets' per-user GPU limits, and the node lists of the jobs that name nodes — written onto the
 * snapshot's jobs and tree. The first three queries touch only the rows that carry such a rule; the
 * node lists' reads the cluster's active jobs by the (clusterId, state) index and keeps the few with a list.
 */
export async function addJobRules(
  db: Db,
  clusterId: string,
  snapshot: Pick<ClusterSnapshot, "tree" | "running" | "pending">,
): Promise<void> {
  const [arrays, deps, limits, nodeLists] = await Promise.all([
    db.$queryRaw<{ id: number; arrayJobId: number; arrayMaxRunning: number | null }[]>`
      SELECT id, "arrayJobId", "arrayMaxRunning" FROM job
      WHERE "clusterId" = ${clusterId} AND "arrayJobId" IS NOT NULL AND state IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')`,
    db.$queryRaw<{ jobId: number; parentId: number; condition: string; state: string | null }[]>(
      waitingDependenciesSql(clusterId),
    ),
    db.$queryRaw<{ id: string; maxGpusPerUser: number }[]>`
      SELECT id, "maxGpusPerUser" FROM budget_tree_node WHERE "maxGpusPerUser" IS NOT NULL AND "archivedAt" IS NULL`,
    // `--nodelist` / `--exclude`: the core places such a job only on the nodes it may use; a running one
    // is never moved (R12) off them. Names, as the core compares them with its nodes' names.
    db.$queryRaw<{ id: number; nodeList: string[] | null; excludeNodes: string[] | null }[]>`
      SELECT id, "nodeList", "excludeNodes" FROM job
      WHERE "clusterId" = ${clusterId} AND state IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')
        AND (cardinality("nodeList") > 0 OR cardinality("excludeNodes") > 0)`,
  ]);
  if (nodeLists.length > 0) {
    const byId = new Map(nodeLists.map((l) => [String(l.id), l]));
    for (const j of [...snapshot.pending, ...snapshot.running]) {
      const l = byId.get(j.id);
      if (!l) continue;
      if (l.nodeList?.length) j.nodes = l.nodeList;
      if (l.excludeNodes?.length) j.excludeNodes = l.excludeNodes;
    }
  }
  if (arrays.length > 0) {
    const byId = new Map(arrays.map((a) => [String(a.id), a]));
    for (const j of snapshot.running) {
      const a = byId.get(j.id);
      if (a) j.arrayId = String(a.arrayJobId);
    }
    for (const j of snapshot.pending) {
      const a = byId.get(j.id);
      if (a) {
        j.arrayId = String(a.arrayJobId);
        j.arrayMaxRunning = a.arrayMaxRunning;
      }
    }
  }
  if (deps.length > 0) {
    const byJob = new Map<string, JobDependency[]>();
    for (const d of deps) {
      const list = byJob.get(String(d.jobId)) ?? [];
      list.push({
        jobId: String(d.parentId),
        condition: d.condition === "ANY" ? "any" : "ok",
        // A parent that no longer exists cannot succeed: its dependants say so.
        state: (d.state ?? "CANCELLED") as DependencyState,
      });
      byJob.set(String(d.jobId), list);
    }
    for (const j of snapshot.pending) {
      const list = byJob.get(j.id);
      if (list) j.dependencies = list;
    }
  }
  if (limits.length > 0) {
    const byBudget = new Map(limits.map((l) => [l.id, l.maxGpusPerUser]));
    for (const n of snapshot.tree) {
      const l = byBudget.get(n.id);
      if (l !== undefined) n.maxGpusPerUser = l;
    }
  }
}
