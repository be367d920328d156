/**
 * Benchmark of one scheduling cycle (issue 3, "Speed"): 1,024 nodes x 8 GPUs, 2,000 running jobs,
 * 200 budgets four levels deep, and 1,000 / 10,000 / 50,000 pending jobs. Target for 10,000 pending:
 * median <= 50 ms and memory <= 200 MB on the 2-core dev machine.
 *
 *   node --expose-gc --import tsx bench/scheduler-core.bench.ts [--runs 15] [--seed 42] [--rest-ms 250] [--only-10k] [--default-v8]
 *
 * The headline figure is the paced median (see measure()): a cycle on a freshly loaded snapshot after
 * a rest, as the worker runs it. Back-to-back and after-forced-GC medians are printed beside it.
 *
 * Each configuration runs in a child process with the V8 heap flags the worker and the simulator run
 * with (scripts/platform/v8-flags.ts); `--default-v8` measures with V8's defaults instead.
 *
 * The generator uses a seeded PRNG (randomness is fine here, never in the core).
 */
import {
  defaultPolicy,
  runCycle,
  type BudgetTreeNode,
  type ClusterSnapshot,
  type CycleResult,
  type Node,
  type PendingJob,
  type RunningJob,
} from "@tranche/scheduler-core";
import { SCHEDULER_V8_FLAGS } from "../scripts/platform/v8-flags";
import { mulberry32 } from "./support/prng";

export interface BenchShape {
  nodes: number;
  gpusPerNode: number;
  running: number;
  pending: number;
  /** Fan-out per level below the root: 5 divisions x 4 teams x 10 projects = 200 budgets. */
  fanout: number[];
}

export function generateSnapshot(shape: BenchShape, seed: number, now: number): ClusterSnapshot {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(rnd() * (hi - lo + 1));

  const nodes: Node[] = Array.from({ length: shape.nodes }, (_, i) => ({
    id: `node-${String(i).padStart(4, "0")}`,
    name: `node-${String(i).padStart(4, "0")}`,
    gpuCount: shape.gpusPerNode,
    state: i % 97 === 5 ? "CORDONED" : "READY",
    health: "HEALTHY",
    lastHeartbeatAt: now - 5,
  }));
  const capacity = shape.nodes * shape.gpusPerNode;
  const window = 7 * 86_400;

  // Budget tree: root -> divisions -> teams -> projects (leaves).
  const tree: BudgetTreeNode[] = [
    {
      id: "root",
      name: "lab",
      parentId: null,
      allocationPpm: 1_000_000,
      usageGpuSeconds: 0,
      entitlementGpuSeconds: capacity * window,
    },
  ];
  const leaves: string[] = [];
  const build = (parentId: string, parentFraction: number, level: number, prefix: string): void => {
    const n = shape.fanout[level]!;
    const weights = Array.from({ length: n }, () => 0.5 + rnd());
    const sum = weights.reduce((a, b) => a + b, 0) * (1 + rnd() * 0.1); // leave a little unassigned
    for (let i = 0; i < n; i++) {
      const id = `${prefix}${i}`;
      const ppm = Math.floor((weights[i]! / sum) * 1_000_000);
      const fraction = (parentFraction * ppm) / 1_000_000;
      tree.push({
        id,
        name: id,
        parentId,
        allocationPpm: ppm,
        usageGpuSeconds: 0,
        entitlementGpuSeconds: Math.round(fraction * capacity * window),
      });
      if (level + 1 < shape.fanout.length) build(id, fraction, level + 1, `${id}.`);
      else leaves.push(id);
    }
  };
  build("root", 1, 0, "b");
  // Leaf usage around its entitlement (ratios spread 0.3 .. 1.7).
  for (const t of tree) if (leaves.includes(t.id)) t.usageGpuSeconds = Math.round(t.entitlementGpuSeconds * (0.3 + rnd() * 1.4));
  // A few budgets without allocation (unallocated-only teams).
  for (let i = 0; i < 5; i++) {
    const t = tree.find((x) => x.id === leaves[i * 37]);
    if (t) {
      t.allocationPpm = 0;
      t.entitlementGpuSeconds = 0;
    }
  }

  const sizes = [1, 1, 2, 4, 4, 8, 8, 8, 16, 32];
  const contract = (i: number, kind: "running" | "pending") => {
    const debug = kind === "pending" ? rnd() < 0.05 : rnd() < 0.02;
    const unallocated = !debug && rnd() < 0.15;
    const gpus = debug ? pick([1, 2, 4, 8]) : rnd() < 0.02 ? pick([64, 128]) : pick(sizes);
    return {
      id: `${kind}-${i}`,
      budgetId: pick(leaves),
      userId: `user-${int(0, 149)}`,
      submittedAt: now - int(60, 3 * 86_400),
      gpus,
      minRuntime: debug ? 600 : unallocated ? 0 : pick([1800, 3600, 4 * 3600, 8 * 3600]),
      maxRuntime: debug ? 600 : rnd() < 0.3 ? pick([4 * 3600, 24 * 3600]) : null,
      priority: int(0, 2),
      resumable: rnd() < 0.7,
      requeueOnPreempt: false,
      gracePeriod: null,
    };
  };

  // Running jobs: packed onto nodes, multi-node ones on whole free nodes.
  const free = new Array<number>(shape.nodes).fill(shape.gpusPerNode);
  const running: RunningJob[] = [];
  let cursor = 0;
  for (let i = 0; i < shape.running * 3 && running.length < shape.running; i++) {
    const c = contract(i, "running");
    if (c.gpus > 16) continue; // keep the running mix small enough for 2,000 jobs to fit
    const startedAt = now - int(60, 12 * 3600);
    if (c.gpus > shape.gpusPerNode) {
      const need = c.gpus / shape.gpusPerNode;
      const whole: number[] = [];
      for (let n = 0; n < shape.nodes && whole.length < need; n++) if (free[n] === shape.gpusPerNode) whole.push(n);
      if (whole.length < need) continue;
      for (const n of whole) free[n] = 0;
      running.push({
        ...c,
        startedAt,
        placement: whole.map((n) => ({ nodeId: nodes[n]!.id, gpuIndexes: [0, 1, 2, 3, 4, 5, 6, 7] })),
      });
      continue;
    }
    let placed = -1;
    for (let k = 0; k < shape.nodes; k++) {
      const n = (cursor + k) % shape.nodes;
      if (free[n]! >= c.gpus) {
        placed = n;
        break;
      }
    }
    if (placed < 0) continue;
    cursor = (placed + 1) % shape.nodes;
    const first = shape.gpusPerNode - free[placed]!;
    free[placed]! -= c.gpus;
    running.push({
      ...c,
      startedAt,
      placement: [{ nodeId: nodes[placed]!.id, gpuIndexes: Array.from({ length: c.gpus }, (_, g) => first + g) }],
    });
  }

  const pending: PendingJob[] = Array.from({ length: shape.pending }, (_, i) => contract(i, "pending"));
  return { cluster: { id: "bench", name: "bench", gpuType: "H100" }, nodes, tree, running, pending };
}

/**
 * Applies a cycle's plan the way the worker would (victims exit at once), so the next cycle sees a
 * steady state: the pending jobs that could start or preempt have done so.
 */
export function applyPlan(snap: ClusterSnapshot, result: CycleResult, now: number): ClusterSnapshot {
  const running = new Map(snap.running.map((j) => [j.id, j]));
  const pending = new Map(snap.pending.map((j) => [j.id, j]));
  const nodes = snap.nodes.map((n) => ({ ...n }));
  for (const op of result.plan) {
    if (op.op === "NODE_STATE") {
      const n = nodes.find((x) => x.id === op.nodeId);
      if (n) n.state = op.to;
    } else if (op.op === "PREEMPT" || op.op === "LOST") {
      const j = running.get(op.jobId);
      running.delete(op.jobId);
      if (j && op.requeue) {
        const { startedAt: _s, placement: _p, charged: _c, stopping: _t, ...rest } = j;
        pending.set(j.id, { ...rest, requeuedAt: now });
      }
    } else if (op.op === "START") {
      const j = pending.get(op.jobId);
      pending.delete(op.jobId);
      if (j) running.set(j.id, { ...j, startedAt: now, placement: op.placement, charged: op.charged, stopping: null });
    }
  }
  return { ...snap, nodes, running: [...running.values()], pending: [...pending.values()], reservations: result.reservations };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Three series of the same cycle, so no single way of timing flatters the figure:
 *  - paced (the headline): as the worker runs it, each cycle on a freshly loaded copy of the snapshot
 *    (structuredClone, as a load from Postgres builds new objects), after a rest (the worker rests at
 *    least as long as its last cycle, and seconds when idle); V8's background threads finish the
 *    previous cycle's marking, sweeping and compiling during the rest, as they do in the worker;
 *  - back to back: the same snapshot, no rest, so the background work of one cycle overlaps the next;
 *  - after a forced full GC: gc() right before each cycle, which no production process does; the
 *    concurrent sweeping it leaves behind competes with the cycle on two cores.
 * Memory: RSS peak of one cycle (over the forced-GC series, where earlier cycles' garbage is gone) and
 * RSS peak over the paced series (with whatever garbage V8 has not collected yet).
 */
/**
 * One cycle as the worker uses it: the result's reasons are built when first read (PendingReasons),
 * and the worker reads them all, so the timed cycle reads them too.
 */
function cycle(snap: ClusterSnapshot, now: number): CycleResult {
  const result = runCycle(snap, defaultPolicy, now);
  for (const r of result.pending.values()) if (r.sentence.length === 0) throw new Error("a reason without a sentence");
  return result;
}

async function measure(label: string, snap: ClusterSnapshot, now: number, runs: number, restMs: number): Promise<string> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const base = process.memoryUsage();
  for (let i = 0; i < 3; i++) cycle(structuredClone(snap), now); // JIT warm-up
  // First, while the heap holds nothing but the snapshot: the forced-GC series gives one cycle's memory.
  const afterGc: number[] = [];
  let rssPeakOne = 0;
  for (let i = 0; gc && i < runs; i++) {
    gc();
    const t0 = performance.now();
    cycle(snap, now);
    afterGc.push(performance.now() - t0);
    rssPeakOne = Math.max(rssPeakOne, process.memoryUsage().rss);
  }
  const times: number[] = [];
  const cpu: number[] = [];
  let rssPeak = 0;
  let heapPeak = 0;
  let last = cycle(snap, now);
  for (let i = 0; i < runs; i++) {
    const fresh = structuredClone(snap);
    await sleep(restMs);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    last = cycle(fresh, now);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }
  const backToBack: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    cycle(snap, now);
    backToBack.push(performance.now() - t0);
  }
  const s = last.stats;
  const mb = (b: number): string => (b / 2 ** 20).toFixed(0);
  const ms = (xs: number[]): string => (xs.length > 0 ? median(xs).toFixed(1) : "-");
  return `| ${label} | ${snap.pending.length.toLocaleString("en-US")} | ${snap.running.length.toLocaleString("en-US")} | ${ms(times)} | ${ms(cpu)} | ${Math.min(...times).toFixed(1)} | ${Math.max(...times).toFixed(1)} | ${ms(backToBack)} | ${ms(afterGc)} | ${mb(base.rss)} | ${gc ? mb(rssPeakOne) : "-"} | ${mb(rssPeak)} | ${mb(heapPeak - base.heapUsed)} | ${s.started} | ${s.preempted} | ${s.reservations} | ${s.preemptionSearches} |`;
}

const HEADER = [
  "| state | pending | running | paced median ms (wall) | paced median ms (CPU) | paced min ms | paced max ms | back-to-back median ms | after forced GC median ms | RSS before MB | RSS peak one cycle MB | RSS peak paced MB | heap growth MB | started | preempted | reservations | preemption searches |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
];

/** One configuration in this process: prints its table row. */
async function runOne(pendingCount: number, state: "cold" | "steady", runs: number, seed: number, restMs: number): Promise<void> {
  const now = 1_800_000_000;
  let snap = generateSnapshot(
    { nodes: 1024, gpusPerNode: 8, running: 2000, pending: pendingCount, fanout: [5, 4, 10] },
    seed,
    now,
  );
  let t = now;
  if (state === "steady") {
    // Steady state: two cycles applied 30 s apart, then the cycle measured.
    for (let i = 0; i < 2; i++) {
      snap = applyPlan(snap, runCycle(snap, defaultPolicy, t), t);
      t += 30;
      for (const n of snap.nodes) n.lastHeartbeatAt = t - 5; // agents keep reporting
    }
  }
  console.log(await measure(state, snap, t, runs, restMs));
}

/**
 * Each configuration runs in a fresh process, so its memory figures are its own (RSS includes node
 * and the tsx loader, about 60-80 MB before any snapshot exists).
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: number): number => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) || fallback : fallback;
  };
  const runs = arg("--runs", 15);
  const seed = arg("--seed", 42);
  const one = args.indexOf("--one");
  if (one >= 0) {
    await runOne(Number(args[one + 1]), args[one + 2] === "steady" ? "steady" : "cold", runs, seed, arg("--rest-ms", 250));
    return;
  }
  const { execFileSync } = await import("node:child_process");
  const sizes = args.includes("--only-10k") ? [10_000] : [1_000, 10_000, 50_000];
  const v8 = args.includes("--default-v8") ? "V8 defaults" : SCHEDULER_V8_FLAGS.join(" ");
  console.log(
    `scheduler-core runCycle: 1,024 nodes x 8 GPUs, 200 budgets (5x4x10), seed ${seed}, node ${process.version}, ${v8}`,
  );
  for (const line of HEADER) console.log(line);
  for (const pendingCount of sizes) {
    for (const state of ["cold", "steady"]) {
      const n = pendingCount >= 50_000 ? Math.max(5, Math.floor(runs / 3)) : runs;
      const out = execFileSync(
        process.execPath,
        [
          ...process.execArgv,
          // The worker's and simulator's heap settings (scripts/platform/v8-flags.ts); --default-v8 omits them.
          ...(args.includes("--default-v8") ? [] : SCHEDULER_V8_FLAGS),
          process.argv[1]!,
          "--one",
          String(pendingCount),
          state,
          "--runs",
          String(n),
          "--seed",
          String(seed),
          "--rest-ms",
          String(arg("--rest-ms", 250)),
        ],
        { encoding: "utf8" },
      );
      process.stdout.write(out);
    }
  }
}

if (process.argv[1]?.endsWith("scheduler-core.bench.ts")) await main();
