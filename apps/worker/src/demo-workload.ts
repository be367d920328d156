// The demo workload generator behind `npm start`: a realistic stream of jobs submitted through the
// public REST API (POST /api/v1/jobs with a bearer API token), so queues, preemptions and charts move
// within a minute of start.
//
//   node --import tsx apps/worker/src/demo-workload.ts --server http://127.0.0.1:3000   (DATABASE_URL set)
//
// Shape (per cluster): demand held at ~2.5x the cluster's GPUs (running + pending); ~25% debug-lane jobs
// (maxRuntime 5-15 min, 1-8 GPUs), ~15% unallocated work (minRuntime 0), the rest allocated with
// contracts from 15 min to 8 h; sizes 1 to 64 GPUs (whole nodes above 8); a few idle "squatters".
// Contracts are real; the processes' run times are scaled down (seconds to ~2 minutes) so things move.
// The database is used only to find budgets and their members and to mint one API token per budget
// (revoking the previous start's, demo-token.ts);
// every submission goes through the REST API like any client's.
import { parseArgs } from "node:util";
import { createPrismaClient } from "@tranche/db";
import { DEMO_LOGINS } from "@tranche/db/setup";
import { submitJobInput } from "@tranche/contracts";
import { IN_SERVICE, submitJob, type Actor } from "@tranche/domain";
import { freshGeneratorToken } from "./demo-token";

const { values } = parseArgs({ options: { server: { type: "string" }, rate: { type: "string" }, seed: { type: "string" } } });
const server = values.server?.replace(/\/$/, "");
if (!server) {
  console.error("demo-workload: --server http://host:port is required");
  process.exit(2);
}
const url = process.env.DATABASE_URL;
if (!url) {
  console.error("demo-workload: DATABASE_URL is not set");
  process.exit(2);
}
const DEMAND_FACTOR = Number(process.env.TRANCHE_DEMO_DEMAND ?? 2.5);
const MAX_PER_TICK = Number(values.rate ?? 40);

// Deterministic pseudo-random stream (mulberry32), so two demo runs look alike.
let state = Number(values.seed ?? 20261130) >>> 0;
const rand = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const between = (a: number, b: number) => Math.round(a + rand() * (b - a));

const prisma = createPrismaClient(url, { max: 2 });
const log = (l: string) => console.log(`${new Date().toISOString()} ${l}`);

interface Submitter {
  budget: string;
  token: string;
  actor: Actor;
}

async function makeSubmitters(): Promise<Submitter[]> {
  const leaves = await prisma.budgetTreeNode.findMany({
    where: { archivedAt: null, children: { none: {} } },
    // The generator submits as the generated researchers, never as a demo login: Ada's "My jobs" holds
    // only what she submitted.
    include: {
      members: {
        where: { user: { email: { notIn: DEMO_LOGINS.map((l) => l.email) } } },
        include: { user: true },
        orderBy: { userId: "asc" },
        take: 1,
      },
    },
    orderBy: { path: "asc" },
  });
  const out: Submitter[] = [];
  for (const leaf of leaves) {
    const user = leaf.members[0]?.user;
    if (!user) continue;
    const actor: Actor = { id: user.id, email: user.email, name: user.name, role: user.role };
    const token = await freshGeneratorToken(prisma, actor);
    out.push({ budget: leaf.path, token, actor });
  }
  return out;
}

const SIZES = [1, 1, 2, 2, 4, 4, 8, 8, 8, 16, 16, 32, 64] as const;

function makeJob(cluster: string, budget: string, n: number) {
  const r = rand();
  const steps = (seconds: number, resumable: boolean) =>
    [
      resumable
        ? `if [ -f "$TRANCHE_CHECKPOINT_DIR/ckpt" ]; then echo "resuming from step $(cat "$TRANCHE_CHECKPOINT_DIR/ckpt")"; fi`
        : "",
      `trap 'echo "SIGTERM at step $i: checkpointing"; echo "$i" > "$TRANCHE_CHECKPOINT_DIR/ckpt"; exit 0' TERM`,
      `i=0; while [ $i -lt ${seconds} ]; do i=$((i+1)); echo "step $i/${seconds} on $TRANCHE_NODE_NAME GPUs $CUDA_VISIBLE_DEVICES"; sleep 1; done`,
      `echo done`,
    ]
      .filter(Boolean)
      .join("\n");
  if (r < 0.25) {
    const maxRuntime = between(5, 15) * 60;
    return {
      cluster,
      budget,
      name: `debug-${n}`,
      gpus: pick([1, 1, 2, 4, 8] as const),
      minRuntime: Math.min(300, maxRuntime),
      maxRuntime,
      resumable: false,
      priority: 0,
      command: steps(between(3, 15), false),
      env: {},
    };
  }
  if (r < 0.4) {
    return {
      cluster,
      budget,
      name: `scavenge-${n}`,
      gpus: pick([1, 2, 4, 8, 8, 16] as const),
      minRuntime: 0,
      resumable: true,
      priority: 0,
      command: steps(between(20, 90), true),
      env: {},
    };
  }
  const squat = rand() < 0.04;
  return {
    cluster,
    budget,
    name: `${squat ? "notebook" : "train"}-${n}`,
    gpus: pick(SIZES),
    minRuntime: pick([900, 1800, 3600, 7200, 14_400, 28_800] as const),
    resumable: rand() < 0.6,
    priority: pick([0, 0, 0, 1, -1] as const),
    command: steps(between(10, 120), true),
    env: squat ? { TRANCHE_FAKE_GPU_UTIL: "1" } : {},
  };
}

async function main(): Promise<void> {
  const submitters = await makeSubmitters();
  if (submitters.length === 0) {
    log("demo-workload: no budget has members; nothing to submit");
    return;
  }
  log(`demo-workload: ${submitters.length} budgets submitting through ${server}/api/v1/jobs, demand ~${DEMAND_FACTOR}x capacity`);
  const clusters = await prisma.cluster.findMany({ include: { nodes: { where: IN_SERVICE, select: { gpuCount: true } } } });
  let n = 0;
  let failures = 0;
  let degraded = false;
  let lastProbe = 0;
  for (;;) {
    for (const c of clusters) {
      const capacity = c.nodes.reduce((s, x) => s + x.gpuCount, 0);
      const demand = await prisma.job.aggregate({
        where: { clusterId: c.id, state: { in: ["PENDING", "RUNNING", "STOPPING"] } },
        _sum: { gpus: true },
      });
      let gap = DEMAND_FACTOR * capacity - (demand._sum.gpus ?? 0);
      let submitted = 0;
      while (gap > 0 && submitted < MAX_PER_TICK) {
        const s = pick(submitters);
        const job = makeJob(c.name, s.budget, ++n);
        // While the REST API is failing, probe it at most every 30 s and submit through submitJob meanwhile.
        const useRest = !degraded || Date.now() - lastProbe >= 30_000;
        const res = useRest
          ? await fetch(`${server}/api/v1/jobs`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${s.token}` },
              body: JSON.stringify(job),
            }).catch((e: unknown) => ({ ok: false, status: 0, text: async () => String(e) }) as const)
          : null;
        if (useRest && degraded) lastProbe = Date.now();
        if (res && !res.ok && res.status >= 400 && res.status < 500) {
          if (failures++ % 20 === 0)
            log(`demo-workload: submit refused (HTTP ${res.status}): ${(await res.text()).slice(0, 200)}`);
          break;
        }
        if (!res || !res.ok) {
          // The REST API is down or broken (5xx): keep the demo moving through the same use-case the API
          // calls (submitJob: same validation, same transaction), and say so. Back on REST once it answers.
          if (res && !degraded) {
            log(
              `demo-workload: the REST API fails (HTTP ${res.status}: ${(await res.text()).slice(0, 160).replace(/\s+/g, " ")}); submitting through the domain's submitJob, retrying REST every 30 s`,
            );
            degraded = true;
            lastProbe = Date.now();
          }
          try {
            await submitJob(prisma, s.actor, submitJobInput.parse(job));
          } catch (e) {
            if (failures++ % 20 === 0) log(`demo-workload: submitJob refused: ${(e as Error).message}`);
            break;
          }
        } else if (degraded) {
          degraded = false;
          log("demo-workload: the REST API answers again; submitting through it");
        }
        gap -= job.gpus;
        submitted++;
      }
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}

const quit = () => void prisma.$disconnect().finally(() => process.exit(0));
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, quit);
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
const parent = process.ppid;
setInterval(() => process.ppid !== parent && quit(), 1000).unref();
main().catch((e: unknown) => {
  console.error(`demo-workload: ${(e as Error).message}`);
  process.exit(1);
});
