import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "@tranche/db/testing";
import { applyCyclePlan, chargeOpenSegments, closeRun, loadCycleInput, writeStartForecasts } from "@tranche/domain/runtime";
import { runCycle } from "@tranche/scheduler-core";
import { startHeartbeatScene, submit, type HeartbeatScene, type World } from "./harness";

const DELAYS_MS = [0, 5, 10, 20, 30, 45, 60, 90];

/**
 * The plan applier and an agent's heartbeat write the same rows (nodes, jobs, run segments, the usage
 * ledger). They take them in one order — the cluster's node rows, then jobs — so running both at once
 * never ends in Postgres' `deadlock detected`. The scene that deadlocked: a cycle declares one node
 * DOWN and closes its jobs as lost (charging the ledger) while the other node's agent reports its jobs
 * exited (charging the same ledger rows), and the cycle then charges every open segment.
 */
describe("the plan applier and the agent heartbeat lock rows in the same order", () => {
  let db: TestDatabase;
  let world: World;
  let beat: HeartbeatScene["beat"];

  beforeAll(async () => {
    ({ db, world, beat } = await startHeartbeatScene("lock_order"));
  });
  afterAll(async () => {
    await db?.drop();
  });

  const decide = async (now: number) => {
    const input = await loadCycleInput(db.prisma, world.clusterId, now);
    return { input, result: runCycle(input.snapshot, input.policy, now) };
  };
  const apply = ({ input, result }: Awaited<ReturnType<typeof decide>>) =>
    applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 });

  it("a cycle losing one node's jobs and the other node's exit reports, at once, eight times over: no deadlock, every run closed once", async () => {
    let t = Math.floor(Date.now() / 1000) - 3000;
    for (let round = 0; round < DELAYS_MS.length; round++) {
      for (const name of ["c1-0", "c1-1"]) expect((await beat(name, t)).status).toBe(200);
      const ids = [];
      for (let i = 0; i < 16; i++) ids.push(await submit(db.prisma, world, { command: "sleep 600", gpus: 1, resumable: true }));
      await apply(await decide(t + 1));
      const open = await db.prisma.runSegment.findMany({
        where: { jobId: { in: ids }, endedAt: null },
        include: { placements: true },
      });
      expect(open).toHaveLength(16);
      const onSecond = open.filter((s) => s.placements[0]!.nodeId === world.nodeIds["c1-1"]);
      expect(onSecond).toHaveLength(8);

      // c1-0 falls silent; c1-1 keeps beating. Past the heartbeat timeout and the fence grace, a cycle
      // declares c1-0 DOWN and loses its jobs while c1-1 reports all of its own jobs exited.
      t += 200;
      expect((await beat("c1-1", t - 1)).status).toBe(200);
      const decided = await decide(t);
      expect(decided.result.plan.filter((o) => o.op === "LOST")).toHaveLength(8);
      const exits = onSecond.map((s) => ({
        jobId: s.jobId,
        segmentId: String(s.id),
        status: "EXITED",
        pid: 1,
        launchedAt: null,
        exitCode: 0,
        signal: null,
        endedAt: new Date(t * 1000).toISOString(),
      }));
      // The report lands at a different moment of the apply each round (the deadlock needed it mid-way).
      const delay = DELAYS_MS[round]!;
      const [applied, reported] = await Promise.allSettled([
        apply(decided),
        new Promise((r) => setTimeout(r, delay)).then(() => beat("c1-1", t, exits)),
      ]);
      expect(applied.status === "rejected" ? String(applied.reason) : "applied").toBe("applied");
      expect(reported.status === "rejected" ? String(reported.reason) : reported.value.status).toBe(200);

      const jobs = await db.prisma.job.findMany({ where: { id: { in: ids } }, select: { id: true, state: true } });
      const secondIds = new Set(onSecond.map((s) => s.jobId));
      for (const j of jobs) expect(j.state).toBe(secondIds.has(j.id) ? "COMPLETED" : "PENDING");
      expect(await db.prisma.runSegment.count({ where: { jobId: { in: ids }, endedAt: null } })).toBe(0);
      // Leave the lost jobs out of the next round.
      await db.prisma.job.updateMany({ where: { id: { in: ids }, state: "PENDING" }, data: { state: "CANCELLED" } });
      t += 10;
    }
  }, 180_000);
});

/**
 * The notes written on many pending jobs (a cycle's reasons, the start forecast) skip a job another
 * transaction holds instead of waiting for it. Waiting there could close a deadlock: a bulk cancel or a
 * test's cleanup holding some of those rows and waiting for a job the cycle had locked to start it (an
 * end-to-end run hit exactly that, 40P01). The holder below stands for any such transaction; a watcher
 * looks for a backend waiting on a lock while the write runs, and lets the holder go if it finds one,
 * so a write that waits fails the test instead of hanging it.
 */
describe("reasons and start estimates never wait for a pending job another transaction holds", () => {
  let db: TestDatabase;
  let world: World;

  beforeAll(async () => {
    ({ db, world } = await startHeartbeatScene("lock_notes"));
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Runs `write` while another transaction holds job `held`'s row; says whether anything waited on a lock. */
  async function whileHeld<T>(held: number, write: () => Promise<T>): Promise<{ value: T; waited: boolean }> {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = db.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM job WHERE id = ${held} FOR UPDATE`;
        locked();
        await released;
      },
      { timeout: 60_000 },
    );
    await isLocked;
    let waited = false;
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const [row] = await db.prisma.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        if (row!.n > 0) {
          waited = true;
          release();
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    try {
      const value = await write();
      return { value, waited };
    } finally {
      done = true;
      release();
      await watcher;
      await holder;
    }
  }

  it("a cycle writes every other job's reason and leaves the held job's for the next cycle; the forecast likewise", async () => {
    const t = Math.floor(Date.now() / 1000) - 600;
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await submit(db.prisma, world, { command: "sleep 600", gpus: 8 }));
    const held = ids[4]!; // two nodes of 8 GPUs: the first two start, the last three wait
    const input = await loadCycleInput(db.prisma, world.clusterId, t);
    const result = runCycle(input.snapshot, input.policy, t);
    expect(result.plan.filter((o) => o.op === "START").map((o) => Number(o.jobId))).toEqual(ids.slice(0, 2));

    const cycle = await whileHeld(held, () => applyCyclePlan(db.prisma, input, result, "test", { loadMs: 0, decideMs: 0 }));
    expect(cycle.waited).toBe(false);
    expect(cycle.value.started).toBe(2);
    expect(cycle.value.reasonsWritten).toBe(2);
    const reasons = async () =>
      new Map(
        (await db.prisma.job.findMany({ where: { id: { in: ids } }, select: { id: true, reasonCode: true } })).map((j) => [
          j.id,
          j.reasonCode,
        ]),
      );
    let r = await reasons();
    expect(r.get(ids[2]!)).not.toBeNull();
    expect(r.get(ids[3]!)).not.toBeNull();
    expect(r.get(held)).toBeNull();

    // Released: the next cycle writes it (a job without a stored reason is always written).
    const next = await loadCycleInput(db.prisma, world.clusterId, t + 5);
    await applyCyclePlan(db.prisma, next, runCycle(next.snapshot, next.policy, t + 5), "test", { loadMs: 0, decideMs: 0 });
    r = await reasons();
    expect(r.get(held)).not.toBeNull();

    const estimate = (jobId: number) => ({
      jobId: String(jobId),
      at: t + 3600,
      decidedAt: t + 3600,
      after: [String(ids[0])],
      unknown: null,
      why: null,
    });
    const forecast = await whileHeld(held, () => writeStartForecasts(db.prisma, [estimate(ids[3]!), estimate(held)], t + 5));
    expect(forecast.waited).toBe(false);
    const estimated = await db.prisma.job.findMany({
      where: { id: { in: [ids[3]!, held] } },
      select: { id: true, estimatedAt: true },
    });
    expect(estimated.find((j) => j.id === ids[3])!.estimatedAt).not.toBeNull();
    expect(estimated.find((j) => j.id === held)!.estimatedAt).toBeNull();
  }, 60_000);
});

/**
 * The cycle's charge of every open run skips runs whose job a heartbeat holds. It skipped them after
 * locking their run segment, and a skipped row keeps the locks already taken: the cycle held the run
 * segment of a job the heartbeat held and waited for a ledger row the heartbeat had charged, while the
 * heartbeat, closing that job's run, waited for its segment: `deadlock detected` (40P01) in a heartbeat,
 * seen under the demo's load. Here a heartbeat holds two running jobs and has charged one's exit; the
 * cycle charges (it waits for that ledger row); then the heartbeat closes the other job's run.
 */
describe("the cycle's charge never holds the run of a job a heartbeat holds", () => {
  let db: TestDatabase;
  let world: World;
  let beat: HeartbeatScene["beat"];

  beforeAll(async () => {
    ({ db, world, beat } = await startHeartbeatScene("lock_charge"));
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a heartbeat closing its runs and a cycle charging every run, at once: both commit", async () => {
    const t = Math.floor(Date.now() / 1000) - 3000;
    for (const name of ["c1-0", "c1-1"]) expect((await beat(name, t)).status).toBe(200);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push(await submit(db.prisma, world, { command: "sleep 600", gpus: 1 }));
    const input = await loadCycleInput(db.prisma, world.clusterId, t + 1);
    await applyCyclePlan(db.prisma, input, runCycle(input.snapshot, input.policy, t + 1), "test", {
      loadMs: 0,
      decideMs: 0,
    });
    const segs = await db.prisma.runSegment.findMany({ where: { jobId: { in: ids }, endedAt: null }, orderBy: { jobId: "asc" } });
    expect(segs.map((s) => [s.jobId, s.charged])).toEqual(ids.map((id) => [id, true]));
    const [first, second] = segs;

    let charged!: () => void;
    const hasCharged = new Promise<void>((r) => (charged = r));
    let cycleWaits!: () => void;
    const cycleWaiting = new Promise<void>((r) => (cycleWaits = r));
    const heartbeat = db.prisma.$transaction(
      async (tx) => {
        // The heartbeat's order: its jobs in id order, then the exits' charge (ledger rows), then each run closes.
        await tx.$queryRaw`SELECT id FROM job WHERE id = ANY(${[first!.jobId, second!.jobId]}::int[]) ORDER BY id FOR UPDATE`;
        await chargeOpenSegments(tx, new Date((t + 300) * 1000), { segmentIds: [first!.id] });
        charged();
        await cycleWaiting;
        return closeRun(
          tx,
          {
            jobId: second!.jobId,
            segmentId: second!.id,
            jobState: "RUNNING",
            intent: null,
            resumable: false,
            requeuePolicy: "NEVER",
            charged: true,
            gpus: 1,
          },
          { endedAt: new Date((t + 300) * 1000), cause: "exit", exitCode: 0, signal: null, sentence: "On node c1-0:" },
          { kind: "AGENT", id: null },
        );
      },
      { timeout: 30_000 },
    );
    await hasCharged;
    const cycle = db.prisma.$transaction(
      (tx) => chargeOpenSegments(tx, new Date((t + 600) * 1000), { clusterId: world.clusterId }, { skipLocked: true }),
      { timeout: 30_000 },
    );
    // The cycle reaches the ledger row the heartbeat charged and waits for it.
    for (let i = 0; i < 500; i++) {
      const [row] = await db.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (row!.n > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    cycleWaits();
    const [closed, chargedByCycle] = await Promise.allSettled([heartbeat, cycle]);
    expect(closed.status === "rejected" ? String(closed.reason) : "closed").toBe("closed");
    expect(chargedByCycle.status === "rejected" ? String(chargedByCycle.reason) : "charged").toBe("charged");
    // The cycle charged the third job only; the heartbeat's two jobs were left to it.
    const after = await db.prisma.runSegment.findMany({ where: { jobId: { in: ids } }, orderBy: { jobId: "asc" } });
    expect(after.map((s) => s.chargedUntil?.getTime())).toEqual([(t + 300) * 1000, (t + 300) * 1000, (t + 600) * 1000]);
  }, 60_000);
});
