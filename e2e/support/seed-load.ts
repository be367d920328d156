import pg from "pg";

/**
 * Fill a cluster's queue with `count` pending jobs spread over every budget member (deterministic),
 * in one INSERT: the 10,000-row live-queue test and realistic screenshots use it.
 */
export async function seedPendingJobs(databaseUrl: string, cluster: string, count: number): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(
      `INSERT INTO job ("clusterId","budgetId","userId",name,gpus,"minRuntimeSec","maxRuntimeSec",resumable,priority,"requeuePolicy",command,env,state,"submittedAt","queuedAt","updatedAt")
       SELECT cl.id, m."budgetId", m."userId", 'load-' || g,
              (ARRAY[1,2,4,8,8,8,16,32])[1 + (g % 8)],
              CASE WHEN g % 11 = 0 THEN 300 ELSE (ARRAY[0,1800,3600,7200,14400])[1 + (g % 5)] END,
              CASE WHEN g % 11 = 0 THEN 900 ELSE NULL END,
              (g % 3 <> 0), 0, 'REQUEUE', 'python train.py --seed ' || g, '{}'::jsonb, 'PENDING',
              now() - make_interval(secs => g * 7), now() - make_interval(secs => g * 7), now()
       FROM generate_series(1, $2::int) g
       CROSS JOIN (SELECT id FROM cluster WHERE name = $1) cl
       JOIN LATERAL (
         SELECT "budgetId", "userId" FROM budget_member ORDER BY "budgetId", "userId" OFFSET (g % (SELECT count(*) FROM budget_member)) LIMIT 1
       ) m ON true`,
      [cluster, count],
    );
  } finally {
    await c.end();
  }
}

/**
 * Cancels the seeded jobs still waiting (the queue test's cleanup), so the journeys after it find the
 * cluster's queue as it was: behind 10,000 jobs a new job would wait its turn.
 */
export async function cancelSeededJobs(databaseUrl: string): Promise<void> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    // Job rows locked in id order, as every transaction that changes jobs takes them
    // (packages/domain/src/runtime/lock-order.ts): a plain UPDATE locked them in scan order and
    // deadlocked (40P01) with a worker cycle starting some of them. It did again in one CI run of
    // 2026-12-05 (the cleanup failed, the 10,000 jobs ran and every later journey timed out): the cycle
    // locked its starts, then wrote reasons on pending jobs in queue order. The cycle's reasons now skip
    // rows others hold (write-reasons.ts); a deadlock, which Postgres resolves by aborting one side, is
    // still retried here, because this cleanup must happen.
    for (let attempt = 1; ; attempt++) {
      try {
        await c.query(
          `WITH seeded AS (SELECT id FROM job WHERE name LIKE 'load-%' AND state = 'PENDING' ORDER BY id FOR UPDATE)
           UPDATE job SET state = 'CANCELLED', "finishedAt" = now(), "updatedAt" = now()
           FROM seeded WHERE job.id = seeded.id AND job.state = 'PENDING'`,
        );
        return;
      } catch (e) {
        if ((e as { code?: string }).code !== "40P01" || attempt >= 10) throw e;
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  } finally {
    await c.end();
  }
}
