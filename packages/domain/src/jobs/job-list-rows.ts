import type { PrismaClient } from "@tranche/db";
import type { ArrayRowView, JobRowsView, JobState, ListJobsInput } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { badInput } from "../errors";
import { userNameSql } from "../user-name";
import { ACTIVE_SQL, jobListWhere, jobViewsWhere, listJobs, newWhere } from "./queries";

/**
 * A job list with each job array as one row (listJobsInput's arrays: "rows"): My jobs showed one row per
 * task, so a 100-task array took 100 of its 200 rows and pushed every other job out of view. The limit
 * counts an array once; its tasks are counted by state in the database (GROUP BY), never fetched.
 *
 * An array is in the list when one of its tasks meets the filter (a state: one task in it; active: one
 * task not ended); `active: false` lists the arrays whose tasks have all ended, as it lists jobs that have.
 * Asked for arrays: "tasks", it lists as GET /jobs?arrays=tasks does: every task a job, no array a row.
 */
export async function listJobRows(prisma: PrismaClient, actor: Actor, input: ListJobsInput = {}): Promise<JobRowsView> {
  if (input.arrays === "tasks") return { jobs: await listJobs(prisma, actor, input), arrays: [] };
  if (input.array !== undefined)
    throw badInput(
      `arrays=rows lists each array as one row: ask for arrays=tasks to list the tasks of array ${input.array}`,
      "arrays",
    );
  const where = await jobListWhere(prisma, actor, input);
  const limit = Math.max(1, Math.min(input.limit ?? 100, 1000));
  // The state's condition on a single job (j) and on an array's tasks (t); active: false is its negation
  // (a job not active; an array none of whose tasks is).
  const taskIs = (col: string) =>
    input.state ? `${col} = ${where.p(input.state)}::"JobState"` : input.active !== undefined ? `${col} IN ${ACTIVE_SQL}` : null;
  const stateCond = taskIs("j.state");
  const taskCond = taskIs("t.state");
  const base = where.sql.length ? where.sql.join(" AND ") + " AND " : "";
  const singleState = stateCond ? (input.active === false ? ` AND NOT (${stateCond})` : ` AND ${stateCond}`) : "";
  const arrayState = taskCond
    ? ` AND ${input.active === false ? "NOT " : ""}EXISTS (SELECT 1 FROM job t WHERE t."arrayJobId" = j.id AND ${taskCond})`
    : "";
  // An array's first task stands for it (its id is the array's), so the ids come in the order of job.id.
  const picked = await prisma.$queryRawUnsafe<{ id: number; isArray: boolean }[]>(
    `SELECT id, "isArray" FROM (
       (SELECT j.id, false AS "isArray" FROM job j WHERE ${base}j."arrayJobId" IS NULL${singleState} ORDER BY j.id DESC LIMIT ${limit})
       UNION ALL
       (SELECT j.id, true AS "isArray" FROM job j WHERE ${base}j."arrayJobId" = j.id${arrayState} ORDER BY j.id DESC LIMIT ${limit})
     ) x ORDER BY id DESC LIMIT ${limit}`,
    ...where.params,
  );
  const jobIds = picked.filter((r) => !r.isArray).map((r) => r.id);
  const arrayIds = picked.filter((r) => r.isArray).map((r) => r.id);
  const byId = newWhere();
  byId.sql.push(`j.id = ANY(${byId.p(jobIds)}::int[])`);
  const jobs = jobIds.length ? await jobViewsWhere(prisma, actor, byId, jobIds.length) : [];
  return { jobs, arrays: await arrayRows(prisma, arrayIds) };
}

/** The arrays' rows: their first task's words, and their tasks counted by state in one GROUP BY. */
async function arrayRows(prisma: PrismaClient, ids: number[]): Promise<ArrayRowView[]> {
  if (ids.length === 0) return [];
  const [heads, counts] = await Promise.all([
    prisma.$queryRawUnsafe<Omit<ArrayRowView, "tasks" | "states" | "lastActivityAt">[]>(
      `SELECT j.id, j.name, COALESCE(j."arraySpec", '') AS spec, c.name AS cluster, b.path AS budget,
              json_build_object('id', u.id, 'name', ${userNameSql("u")}) AS "user", j.gpus
       FROM job j JOIN cluster c ON c.id = j."clusterId" JOIN budget_tree_node b ON b.id = j."budgetId" JOIN "user" u ON u.id = j."userId"
       WHERE j.id = ANY($1::int[]) ORDER BY j.id DESC`,
      ids,
    ),
    prisma.$queryRawUnsafe<{ id: number; state: JobState; n: number; last: Date }[]>(
      `SELECT "arrayJobId" AS id, state, count(*)::int AS n, max(GREATEST("submittedAt", "startedAt", "finishedAt")) AS last
       FROM job WHERE "arrayJobId" = ANY($1::int[]) GROUP BY "arrayJobId", state`,
      ids,
    ),
  ]);
  return heads.map((h) => {
    const mine = counts.filter((c) => c.id === h.id);
    return {
      ...h,
      tasks: mine.reduce((n, c) => n + c.n, 0),
      states: Object.fromEntries(mine.map((c) => [c.state, c.n])),
      lastActivityAt: new Date(Math.max(...mine.map((c) => c.last.getTime()))).toISOString(),
    };
  });
}
