// Worker + API benchmark (issue 5): 10,000 jobs submitted through the REST API (POST /api/v1/jobs, the
// very handler the web app serves, called in-process with a bearer API token) while a real worker
// process schedules 1,024 nodes of 8 GPUs. Measures, per job, the time from its submission to the first
// moment it was started or explained (a pending reason written by a cycle), the submission rate, and
// end to end: from the first submission to the last job started or explained.
//
//   node --import tsx bench/worker-api.bench.ts [--jobs 10000] [--nodes 1024] [--concurrency 16]   one job per request
//   node --import tsx bench/worker-api.bench.ts --batch 1000 [--concurrency 2]                     POST /api/v1/jobs/batch
//
// Uses BENCH_DATABASE_URL's server when set (database tranche_bench_api_<pid>, dropped after), else an
// embedded PostgreSQL 17 in .data/bench-api-postgres on a free port.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { handleRest } from "@tranche/api/rest";
import { createPrismaClient } from "@tranche/db";
import { migrateDeploy, repoRoot } from "@tranche/db/setup";
import { createApiToken } from "@tranche/domain";
import { openBenchDatabase } from "./support/bench-database";
import { mulberry32 } from "./support/prng";

const { values } = parseArgs({
  options: {
    jobs: { type: "string" },
    nodes: { type: "string" },
    concurrency: { type: "string" },
    batch: { type: "string" },
  },
});
const JOBS = Number(values.jobs ?? 10_000);
const NODES = Number(values.nodes ?? 1024);
/** Jobs per request: 0 = one job per POST /api/v1/jobs; N = POST /api/v1/jobs/batch with N jobs. */
const BATCH = Number(values.batch ?? 0);
const CONCURRENCY = Number(values.concurrency ?? (BATCH > 0 ? 2 : 16));
if (!(BATCH >= 0 && BATCH <= 1000 && Number.isInteger(BATCH))) throw new Error("--batch must be 0..1000");
const ROOT = repoRoot();

const rand = mulberry32(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

async function main(): Promise<void> {
  const db = await openBenchDatabase(`tranche_bench_api_${process.pid}`, "bench-api-postgres");
  const url = db.url;
  await migrateDeploy(url);
  const prisma = createPrismaClient(url, { max: CONCURRENCY + 2 });
  const worker = spawn(process.execPath, ["--import", "tsx", join(ROOT, "apps/worker/src/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, TRANCHE_CYCLE_INTERVAL_MS: "1000", TRANCHE_WORKER_ID: "bench" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let workerOut = "";
  worker.stdout.on("data", (d: Buffer) => (workerOut += d.toString()));
  worker.stderr.on("data", (d: Buffer) => (workerOut += d.toString()));
  try {
    // World: one cluster of NODES x 8 GPUs, 15 budgets, an admin with an API token.
    const cluster = await prisma.cluster.create({ data: { name: "bench", gpuType: "H100" } });
    await prisma.node.createMany({
      data: Array.from({ length: NODES }, (_, i) => ({
        clusterId: cluster.id,
        name: `bench-${i}`,
        gpuCount: 8,
        state: "READY" as const,
      })),
    });
    const root = await prisma.budgetTreeNode.create({ data: { name: "lab", path: "lab" } });
    await prisma.allocation.create({ data: { treeNodeId: root.id, clusterId: cluster.id, ppm: 1_000_000 } });
    const budgets: string[] = [];
    for (let i = 0; i < 15; i++) {
      const b = await prisma.budgetTreeNode.create({ data: { name: `team${i}`, path: `lab/team${i}`, parentId: root.id } });
      await prisma.allocation.create({ data: { treeNodeId: b.id, clusterId: cluster.id, ppm: 66_000 } });
      budgets.push(b.path);
    }
    const admin = await prisma.user.create({ data: { email: "bench@bench", name: "Bench", role: "ADMIN" } });
    const { token } = await createApiToken(
      prisma,
      { id: admin.id, email: admin.email, name: admin.name, role: "ADMIN" },
      { name: "bench" },
    );

    // Watch, while submitting, when each job is first started or explained (a cycle wrote its reason).
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const firstSeen = new Map<number, number>();
    let lastSeenAt = 0; // wall clock (ms) when the last job was first seen started or explained
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const r = await watcher.query(
          `SELECT id, (EXTRACT(EPOCH FROM "submittedAt") * 1000)::float8 AS sub FROM job WHERE "reasonCycleId" IS NOT NULL OR "startedAt" IS NOT NULL`,
        );
        const now = Date.now();
        for (const row of r.rows as { id: number; sub: number }[])
          if (!firstSeen.has(row.id)) {
            firstSeen.set(row.id, now - row.sub);
            lastSeenAt = now;
          }
        await new Promise((res) => setTimeout(res, 250));
      }
    })();

    // Submit through the REST handler with CONCURRENCY requests in flight.
    const t0 = Date.now();
    let next = 0;
    let refused = 0;
    const latencies: number[] = [];
    const makeJob = () => {
      const debug = rand() < 0.15;
      return {
        cluster: "bench",
        budget: pick(budgets),
        gpus: debug ? pick([1, 2, 4, 8] as const) : pick([1, 1, 2, 4, 8, 8, 16, 32, 64] as const),
        minRuntime: debug ? 600 : pick([0, 900, 3600, 14_400] as const),
        maxRuntime: debug ? 900 : null,
        resumable: rand() < 0.6,
        priority: 0,
        command: "sleep 60",
        env: {},
      };
    };
    const submitOne = async (n: number) => {
      const body = BATCH > 0 ? { jobs: Array.from({ length: n }, makeJob) } : makeJob();
      const path = BATCH > 0 ? "/jobs/batch" : "/jobs";
      const s = performance.now();
      const res = await handleRest(
        new Request(`http://bench/api/v1${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        }),
        path,
        { prisma },
      );
      latencies.push(performance.now() - s);
      if (res.status !== 201) {
        refused += n;
        if (refused < 5 * n) console.error(`refused: ${res.status} ${(await res.text()).slice(0, 300)}`);
      } else await res.arrayBuffer();
    };
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const n = BATCH > 0 ? Math.min(BATCH, JOBS - next) : 1;
          next += n;
          await submitOne(n);
        }
      }),
    );
    const submitSeconds = (Date.now() - t0) / 1000;

    // Wait until every job is started or explained.
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline && firstSeen.size < JOBS - refused) await new Promise((r) => setTimeout(r, 250));
    watching = false;
    await watch;
    await watcher.end();
    const remaining = JOBS - refused - firstSeen.size;
    const allDoneSeconds = (lastSeenAt - t0) / 1000;
    const workerMemory = processMemory(worker.pid!);
    // Per job: submit -> first seen started or explained (sampled every 250 ms, so up to 0.25 s late).
    const rows = [...firstSeen.values()].map((ms) => ms / 1000);
    rows.sort((a, b) => a - b);
    latencies.sort((a, b) => a - b);
    const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
    const cycles = await prisma.schedulingCycle.findMany({ select: { durationMs: true } });
    const durations = cycles.map((c) => c.durationMs).sort((a, b) => a - b);
    const result = {
      jobs: JOBS,
      nodes: NODES,
      concurrency: CONCURRENCY,
      batch: BATCH,
      refused,
      submitSeconds: Math.round(submitSeconds * 10) / 10,
      submitsPerSecond: Math.round(JOBS / submitSeconds),
      requestLatencyMs: { p50: Math.round(q(latencies, 0.5)), p99: Math.round(q(latencies, 0.99)) },
      // End to end: first submission -> last job started or explained (watcher polls every 250 ms).
      allStartedOrExplainedAfterSeconds: remaining === 0 ? Math.round(allDoneSeconds * 10) / 10 : null,
      unexplainedAtDeadline: remaining,
      submitToStartedOrExplainedSeconds: {
        p50: Math.round(q(rows, 0.5) * 10) / 10,
        p99: Math.round(q(rows, 0.99) * 10) / 10,
        max: Math.round(rows[rows.length - 1]! * 10) / 10,
      },
      cycles: durations.length,
      cycleMs: { median: Math.round(q(durations, 0.5)), p99: Math.round(q(durations, 0.99)) },
      started: await prisma.job.count({ where: { state: "RUNNING" } }),
      workerMemoryMiB: workerMemory,
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    worker.kill("SIGTERM");
    await new Promise((r) => worker.once("exit", r));
    if (process.env.BENCH_VERBOSE) console.error(workerOut);
    await prisma.$disconnect();
    await db.close();
  }
}

/** RSS now and its peak (VmHWM) of a process, from /proc (Linux), in MiB. */
function processMemory(pid: number): { rss: number; peakRss: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: Math.round(kb("VmRSS") / 1024), peakRss: Math.round(kb("VmHWM") / 1024) };
  } catch {
    return null;
  }
}

await main();
