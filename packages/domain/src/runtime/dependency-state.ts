import { Prisma } from "@tranche/db";

/**
 * Where a dependency's parent stands, as the core's job rules read it (DependencyState): WAITING while
 * it or any task of its array waits or runs, COMPLETED once all completed, else the first unsuccessful
 * end (by id), with that task's id. A dependency on an array's id is one on every task of the array
 * (Slurm's rule). The parent and its tasks are two index lookups (job's primary key, its arrayJobId
 * index): written as one `OR`, the planner scanned the whole job table once per dependency, and a
 * researcher's 1,000 jobs of 100 dependencies each held a cycle for minutes. `parentId` is the SQL of
 * the parent's id, for a lateral join.
 */
export const parentStateSql = (parentId: Prisma.Sql): Prisma.Sql => Prisma.sql`
  SELECT CASE WHEN bool_or(p.state IN ('PENDING', 'HELD', 'RUNNING', 'STOPPING')) THEN 'WAITING'
              WHEN bool_and(p.state = 'COMPLETED') THEN 'COMPLETED'
              ELSE (array_agg(p.state::text ORDER BY p.id) FILTER (WHERE p.state <> 'COMPLETED'))[1] END AS state,
         (array_agg(p.id ORDER BY p.id) FILTER (WHERE p.state <> 'COMPLETED'))[1] AS "endedTaskId"
  FROM (
    SELECT id, state FROM job WHERE id = ${parentId}
    UNION ALL
    SELECT id, state FROM job WHERE "arrayJobId" = ${parentId} AND id <> ${parentId}
  ) p`;
