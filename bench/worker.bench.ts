// Worker benchmark (issue 5): 1,024 fake nodes of 8 GPUs and 10,000 pending jobs in Postgres; the full
// live cycle (load snapshot, decide, apply the plan in one transaction, record the cycle) timed over
// many cycles with churn between them (jobs finish, new ones arrive), plus the worker's memory.
//
//   node --import tsx bench/worker.bench.ts [--cycles 40] [--nodes 1024] [--jobs 10000]
//
// Uses BENCH_DATABASE_URL's server when set (a database named tranche_bench_<pid> is created on it and
// dropped after), else an embedded PostgreSQL 17 in .data/bench-postgres on a free port.
// Prints one JSON object with the figures; exits 1 when median > 500 ms or p99 > 1.5 s.
import { parseArgs } from "node:util";
import pg from "pg";
import { createPrismaClient, type PrismaClient } from "@tranche/db";
import { migrateDeploy } from "@tranche/db/setup";
import { acquireOrRenewLease } from "@tranche/domain/runtime";
import { Worker } from "../apps/worker/src/worker";
import { openBenchDatabase } from "./support/bench-database";
import { mulberry32 } from "./support/prng";

const { values } = parseArgs({
  options: { cycles: { type: "string" }, nodes: { type: "string" }, jobs: { type: "string" }, "keep-db": { type: "boolean" } },
});
const CYCLES = Number(values.cycles ?? 40);
const NODES = Number(values.nodes ?? 1024);
const JOBS = Number(values.jobs ?? 10_000);

const rand = mulberry32(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const SIZES = [1, 1, 2, 2, 4, 4, 8, 8, 8, 16, 32, 64] as const;
const MIN_RUNTIMES = [0, 900, 1800, 3600, 7200, 14_400, 28_800] as const;

async function seedWorld(prisma: PrismaClient): Promise<{ clusterId: string; budgets: string[]; users: string[] }> {
  const cluster = await prisma.cluster.create({ data: { name: "bench", gpuType: "H100" } });
  const now = new Date();
  await prisma.node.createMany({
    data: Array.from({ length: NODES }, (_, i) => ({
      clusterId: cluster.id,
      name: `bench-${i}`,
      gpuCount: 8,
      state: "READY" as const,
      lastHeartbeatAt: now,
    })),
  });
  const root = await prisma.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
  const at = new Date(Date.now() - 7 * 86_400_000);
  const alloc = async (id: string, ppm: number) => {
    await prisma.allocation.create({ data: { treeNodeId: id, clusterId: cluster.id, ppm } });
    await prisma.allocationChange.create({ data: { treeNodeId: id, clusterId: cluster.id, fromPpm: 0, toPpm: ppm, at } });
  };
  await alloc(root.id, 1_000_000);
  const budgets: string[] = [];
  for (let d = 0; d < 3; d++) {
    const div = await prisma.budgetTreeNode.create({ data: { name: `div${d}`, path: `lab/div${d}`, parentId: root.id } });
    await alloc(div.id, 330_000);
    for (let t = 0; t < 5; t++) {
      const team = await prisma.budgetTreeNode.create({
        data: { name: `team${t}`, path: `lab/div${d}/team${t}`, parentId: div.id },
      });
      await alloc(team.id, 200_000);
      budgets.push(team.id);
    }
  }
  const users = (
    await prisma.user.createManyAndReturn({
      data: Array.from({ length: 150 }, (_, i) => ({ email: `u${i}@bench`, name: `User ${i}` })),
    })
  ).map((u) => u.id);
  return { clusterId: cluster.id, budgets, users };
}

function jobRows(n: number, world: { clusterId: string; budgets: string[]; users: string[] }, at: Date) {
  return Array.from({ length: n }, (_, i) => {
    const debug = rand() < 0.15;
    const gpus = debug ? pick([1, 2, 4, 8] as const) : pick(SIZES);
    return {
      clusterId: world.clusterId,
      budgetId: pick(world.budgets),
      userId: pick(world.users),
      name: `bench-${i}`,
      gpus,
      minRuntimeSec: debug ? 600 : pick(MIN_RUNTIMES),
      maxRuntimeSec: debug ? 900 : null,
      resumable: rand() < 0.6,
      priority: pick([0, 0, 1, -1] as const),
      command: "true",
      submittedAt: new Date(at.getTime() - Math.floor(rand() * 3600_000)),
      queuedAt: at,
    };
  });
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(`tranche_bench_${process.pid}`, "bench-postgres");
  const url = db.url;
  const prisma = createPrismaClient(url, { max: 6 });
  try {
    const t0 = performance.now();
    await migrateDeploy(url);
    const world = await seedWorld(prisma);
    for (let i = 0; i < JOBS; i += 2000)
      await prisma.job.createMany({ data: jobRows(Math.min(2000, JOBS - i), world, new Date()) });
    const setupMs = performance.now() - t0;

    const worker = new Worker(prisma, {
      databaseUrl: url,
      workerId: "bench",
      intervalMs: 1000,
      leaseTtlSec: 600,
      policy: {},
      log: () => {},
    });
    if (!(await acquireOrRenewLease(prisma, "bench", 600))) throw new Error("could not take the lease");
    (worker as unknown as { leader: boolean }).leader = true;

    const memBefore = process.memoryUsage();
    const cycles: {
      totalMs: number;
      loadMs: number;
      decideMs: number;
      applyMs: number;
      started: number;
      preempted: number;
      pending: number;
      running: number;
    }[] = [];
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    let rssPeak = 0;
    // The agents heartbeat while the world is seeded (a slow, loaded machine can take over the 30 s
    // heartbeat timeout to seed, and the first cycle would then declare every node DOWN).
    await admin.query(`UPDATE node SET "lastHeartbeatAt" = now()`);
    for (let c = 0; c < CYCLES; c++) {
      const [r] = await worker.cycleAll();
      cycles.push({
        totalMs: r!.totalMs,
        loadMs: r!.loadMs,
        decideMs: r!.decideMs,
        applyMs: r!.applyMs,
        started: r!.started,
        preempted: r!.preempted,
        pending: r!.pending,
        running: r!.running,
      });
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      // Churn, as agents and users would cause between cycles: ~3% of running jobs finish, the same
      // number of new jobs arrive, and the clock moves on.
      await admin.query(`
        WITH done AS (
          SELECT s.id AS seg, s."jobId" FROM run_segment s JOIN job j ON j.id = s."jobId"
          WHERE s."endedAt" IS NULL AND j.state = 'RUNNING' ORDER BY md5(s.id::text || '${c}') LIMIT (SELECT GREATEST(1, COUNT(*) / 33) FROM job WHERE state = 'RUNNING')
        ), closed AS (
          UPDATE run_segment s SET "endedAt" = now(), "endReason" = 'FINISH' FROM done WHERE s.id = done.seg RETURNING s."jobId"
        )
        UPDATE job j SET state = 'COMPLETED', "finishedAt" = now(), "exitCode" = 0 FROM closed WHERE j.id = closed."jobId"`);
      // The agents' heartbeats (1,024 of them) keep every node alive.
      await admin.query(`UPDATE node SET "lastHeartbeatAt" = now()`);
      const arrived = Math.max(1, Math.round(cycles[cycles.length - 1]!.running / 33));
      await prisma.job.createMany({ data: jobRows(arrived, world, new Date()) });
      await new Promise((r) => setTimeout(r, 1000));
    }
    const stepRows = await admin.query<{ steps: Record<string, number> }>(
      `SELECT stats->'applySteps' AS steps FROM scheduling_cycle ORDER BY id`,
    );
    await admin.end();
    await worker.stop();
    const stepNames = Object.keys(stepRows.rows[1]?.steps ?? {});
    const applyStepMediansMs = Object.fromEntries(
      stepNames.map((k) => {
        const v = stepRows.rows
          .slice(1)
          .map((r) => r.steps?.[k] ?? 0)
          .sort((a, b) => a - b);
        return [k, v[Math.floor(v.length / 2)]];
      }),
    );
    const firstCycleApplySteps = stepRows.rows[0]?.steps;

    const steady = cycles
      .slice(1)
      .map((c) => c.totalMs)
      .sort((a, b) => a - b);
    const q = (p: number) => steady[Math.min(steady.length - 1, Math.floor(p * steady.length))]!;
    const memAfter = process.memoryUsage();
    const result = {
      nodes: NODES,
      gpus: NODES * 8,
      pendingAtStart: JOBS,
      cycles: cycles.length,
      setupSeconds: Math.round(setupMs / 100) / 10,
      firstCycle: cycles[0],
      steadyCycleMs: {
        median: Math.round(q(0.5)),
        p90: Math.round(q(0.9)),
        p99: Math.round(q(0.99)),
        max: Math.round(steady[steady.length - 1]!),
      },
      allCyclesMs: (() => {
        const all = cycles.map((c) => c.totalMs).sort((a, b) => a - b);
        return {
          median: Math.round(all[Math.floor(all.length / 2)]!),
          p99: Math.round(all[Math.min(all.length - 1, Math.floor(0.99 * all.length))]!),
        };
      })(),
      phaseMediansMs: Object.fromEntries(
        (["loadMs", "decideMs", "applyMs"] as const).map((k) => {
          const v = cycles
            .slice(1)
            .map((c) => c[k])
            .sort((a, b) => a - b);
          return [k, Math.round(v[Math.floor(v.length / 2)]!)];
        }),
      ),
      applyStepMediansMs,
      firstCycleApplySteps,
      lastCycle: cycles[cycles.length - 1],
      memoryMiB: {
        rssBefore: Math.round(memBefore.rss / 2 ** 20),
        rssPeak: Math.round(rssPeak / 2 ** 20),
        heapUsedAfter: Math.round(memAfter.heapUsed / 2 ** 20),
      },
    };
    console.log(JSON.stringify(result, null, 2));
    process.exitCode = result.allCyclesMs.median <= 500 && result.allCyclesMs.p99 <= 1500 ? 0 : 1;
  } finally {
    await prisma.$disconnect();
    if (values["keep-db"]) console.error(`kept ${url}`);
    await db.close({ keep: values["keep-db"] });
  }
}

await main();
