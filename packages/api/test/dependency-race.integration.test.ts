import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setDependencies, submitJob } from "@tranche/domain";
import { submitJobInput } from "@tranche/contracts";
import { goodJob, makeWorld, type World } from "./fixtures";

// Two dependency updates at once must not build a cycle between their checks and their writes (jobs
// that wait for each other in a ring wait forever). The test makes them overlap for certain: its own
// connection holds job_event, where each update writes last, so the first waits there with its new
// dependency written, and the second runs its check meanwhile; then it lets go.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_dependency_race");
});
afterAll(async () => {
  await w?.db.drop();
});

/** Until `n` sessions of this database wait for a lock (polled; no time is asserted). */
async function untilWaiting(c: pg.Client, n: number): Promise<void> {
  for (;;) {
    const r = await c.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (r.rows[0].n >= n) return;
    await new Promise((done) => setTimeout(done, 10));
  }
}

it("of two updates that together close a cycle (a waits for b, b for c; then a for b and c for a at once), the second is refused", async () => {
  const job = submitJobInput.parse(goodJob);
  const a = (await submitJob(w.db.prisma, w.users.ada, job)).id;
  const c = (await submitJob(w.db.prisma, w.users.ada, job)).id;
  const b = (await submitJob(w.db.prisma, w.users.ada, submitJobInput.parse({ ...goodJob, after: [String(c)] }))).id;
  const holder = new pg.Client({ connectionString: w.db.url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE job_event IN EXCLUSIVE MODE");
    const first = setDependencies(w.db.prisma, w.users.ada, a, [String(b)]).then(
      () => "set",
      (e: Error) => e.message,
    );
    await untilWaiting(holder, 1);
    const second = setDependencies(w.db.prisma, w.users.ada, c, [String(a)]).then(
      () => "set",
      (e: Error) => e.message,
    );
    await untilWaiting(holder, 2);
    await holder.query("COMMIT");
    expect(await first).toBe("set");
    expect(await second).toMatch(/cycle of dependencies/);
  } finally {
    await holder.end();
  }
  const edges = await w.db.prisma.jobDependency.findMany({
    where: { jobId: { in: [a, b, c] } },
    select: { jobId: true, parentId: true },
    orderBy: { jobId: "asc" },
  });
  expect(edges).toEqual(
    [
      { jobId: a, parentId: b },
      { jobId: b, parentId: c },
    ].sort((x, y) => x.jobId - y.jobId),
  );
});
