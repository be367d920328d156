/**
 * Simulator benchmarks (issue 4, "Quality and speed"). Prints markdown for bench/README.md.
 *
 *   node --import tsx bench/simulator.bench.ts quality [--scenario FILE[,FILE]] [--policies fairshare,priority,fifo] [--days N] [--from D] [--load L]
 *   node --import tsx bench/simulator.bench.ts speed   [--scenario FILE] [--policy fairshare] [--days N] [--from D] [--load L] [--cpu-per-cycle]
 *   node --import tsx bench/simulator.bench.ts forecast [--scenario FILE]
 *
 * Every mode runs with the worker's V8 heap flags (it re-runs itself with them); `--default-v8` omits them.
 *
 * quality: philly-overload.yaml (60 days at 1.5x, a tree that does not follow demand),
 *   philly-merged.yaml (a week at 2x) and helios-overload.yaml (18 days at 1.5x, jobs of 64-160 GPUs);
 *   one table per scenario, one column per policy, the issue 12 rows with the fairshare targets. `--days N` stops N days after the warm-up (for iteration);
 *   `--from D` measures from day D of an imported scenario's window, on the same pool; `--load L` re-imports
 *   it on a pool sized for L times its capacity in demand instead of its own load (reimport).
 *   "demand/capacity" is measured: the mean GPUs asked by all jobs (pending or running, from submit
 *   to their end) over the mean healthy GPUs; the allocated jobs' share of it is printed too.
 * speed: every Philly job (apps/simulator/scenarios/philly-all.yaml, ~110k jobs); target <= 20 s
 *   wall and <= 1 GB. Reports events/s, the share of time inside the policy's cycle function, and
 *   the cycle time by pending-queue size (where the time goes).
 *
 * forecast: the core's start forecast (issue 14) on the merged Philly scenario: over all starts, the
 *   forecast made at submit and at each requeue against the actual start (report.forecast).
 *
 * Traces are read from <repo root>/data/traces (or $TRANCHE_TRACES_DIR).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "@tranche/scheduler-core";
import {
  buildReport,
  createEventSink,
  loadScenarioFile,
  policyConfig,
  POLICIES,
  FORECAST_SIM_OPTIONS,
  runScenarioFile,
  simulate,
  validateScenario,
  type PolicyName,
  type Report,
  type WaitingCount,
  type Scenario,
} from "@tranche/simulator";
import { SCHEDULER_V8_FLAGS } from "../scripts/platform/v8-flags";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);

// The worker's heap settings (scripts/platform/v8-flags.ts): this process re-runs itself with them
// unless it has them already, or `--default-v8` asks for V8's own. A 60-day replay holds 10,000-20,000
// pending jobs a cycle, and each cycle's reasons and order then outgrow V8's default young generation.
const DEFAULT_V8 = args.includes("--default-v8");
if (!DEFAULT_V8 && !SCHEDULER_V8_FLAGS.every((f) => process.execArgv.includes(f))) {
  const child = spawnSync(process.execPath, [...SCHEDULER_V8_FLAGS, ...process.execArgv, process.argv[1]!, ...args], {
    stdio: "inherit",
  });
  process.exit(child.status ?? 1);
}
const V8_SETTINGS = DEFAULT_V8 ? "V8 defaults" : SCHEDULER_V8_FLAGS.join(" ");
const mode = args[0] ?? "quality";
const opt = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};

const BUCKETS = [0, 1, 100, 500, 1000, 2000, 5000, 10000, 20000, 50000, Infinity];
interface Timing {
  cycles: number;
  cycleMs: number;
  /** CPU time (user + system, process.cpuUsage: V8's helper threads too) in the cycles. */
  cycleCpuMs: number;
  byPending: { count: number; ms: number; cpuMs: number }[];
  maxPending: number;
}

/** `--cpu-per-cycle`: also CPU time per cycle (process.cpuUsage around each, which costs wall time). */
const CPU_PER_CYCLE = args.includes("--cpu-per-cycle");

function timed(policy: PolicyName): {
  fn: () => (s: ClusterSnapshot, p: PolicyConfig, now: number) => CycleResult;
  timing: Timing;
} {
  const timing: Timing = {
    cycles: 0,
    cycleMs: 0,
    cycleCpuMs: 0,
    byPending: BUCKETS.slice(1).map(() => ({ count: 0, ms: 0, cpuMs: 0 })),
    maxPending: 0,
  };
  return {
    timing,
    fn: () => {
      const cycle = POLICIES[policy]();
      return (s, p, now) => {
        // CPU per cycle only on request: two process.cpuUsage() calls a cycle were ~10% of a
        // full-Philly replay's wall time (a profile), charged to the replay being measured.
        const c0 = CPU_PER_CYCLE ? process.cpuUsage() : null;
        const t0 = performance.now();
        const r = cycle(s, p, now);
        const ms = performance.now() - t0;
        const c = c0 === null ? null : process.cpuUsage(c0);
        const cpuMs = c === null ? 0 : (c.user + c.system) / 1000;
        timing.cycleCpuMs += cpuMs;
        const n = s.pending.length;
        timing.cycles++;
        timing.cycleMs += ms;
        timing.maxPending = Math.max(timing.maxPending, n);
        let b = 0;
        while (n >= BUCKETS[b + 1]!) b++;
        timing.byPending[b]!.count++;
        timing.byPending[b]!.ms += ms;
        timing.byPending[b]!.cpuMs += cpuMs;
        return r;
      };
    },
  };
}

interface Run {
  report: Report;
  timing: Timing;
  wallMs: number;
  loadMs: number;
  /** GPUs asked by every job (pending or running) / healthy GPUs, time-averaged. */
  demandRatio: number;
  /** The same for allocated jobs only (what delivery's "owed" is measured against). */
  allocatedDemandRatio: number;
  maxRssMb: number;
  jobs: number;
  gpus: number;
  /** Jobs submitted inside the measured window (preemptions per job divide by it). */
  measuredJobs: number;
  /** Healthy GPU-hours of the measured window (capacity). */
  capacityGpuHours: number;
  days: number;
}

/**
 * An imported one-cluster scenario imported again with other knobs, the rest of the file as it is:
 * - `from`: from day `from` of its measured window on, with its warm-up, on the same pool (its node count
 *   fixed, not re-sized for the later window's load): windows of one long workload to tune on without
 *   tuning on one window;
 * - `load`: on a pool sized so the submitted GPU-time is `load` times its capacity (the importer's `load`),
 *   the same jobs, tree and teams: the workload at the 2-3x of the labs Tranche is built for.
 */
function reimport(file: string, knobs: { from?: number | undefined; load?: number | undefined }): Scenario {
  const whole = loadScenarioFile(file);
  const raw = parseYaml(readFileSync(file, "utf8")) as { import?: Record<string, unknown> };
  const imp = raw.import;
  if (!imp || whole.clusters.length !== 1) throw new Error(`--from and --load need an imported one-cluster scenario (${file})`);
  const { from, load } = knobs;
  let next: Record<string, unknown> = { ...imp };
  if (from !== undefined) {
    const days = Number(imp.days ?? 0) - from;
    if (!(from > 0 && days > 0)) throw new Error(`--from ${from}: outside the scenario's ${String(imp.days)} days`);
    const { load: _load, ...rest } = next;
    next = { ...rest, fromDay: Number(imp.fromDay ?? 0) + from, days, nodes: whole.clusters[0]!.nodes };
  }
  if (load !== undefined) {
    if (!(load > 0)) throw new Error(`--load ${load}: must be a positive number`);
    const { nodes: _nodes, ...rest } = next;
    next = { ...rest, load };
  }
  raw.import = next;
  return validateScenario(raw, { file, baseDir: dirname(file) });
}

function run(file: string, policy: PolicyName, days?: number, fromDay?: number, load?: number): Run {
  const t0 = performance.now();
  let scenario = fromDay === undefined && load === undefined ? loadScenarioFile(file) : reimport(file, { from: fromDay, load });
  if (days !== undefined) {
    // A shorter measured window for iteration: stop `days` after the warm-up.
    const until = scenario.simulation.measureFrom + days * 86400;
    scenario = { ...scenario, simulation: { ...scenario.simulation, until } };
  }
  const loadMs = performance.now() - t0;
  const { fn, timing } = timed(policy);
  const sink = createEventSink();
  const out = simulate(scenario, { cycle: fn, policy: policyConfig(scenario), sink });
  const report = buildReport(policy, scenario, out, sink.count, performance.now() - t0);
  // Over the measured window (after the scenario's warm-up), as the report's measures.
  const from = scenario.simulation.measureFrom;
  let allocatedDemand = 0;
  let healthy = 0;
  for (const b of out.recorder.budgetIntervals()) if (b.start >= from) allocatedDemand += b.demandGpuSeconds;
  for (const c of out.recorder.clusterIntervals()) if (c.start >= from) healthy += c.healthyGpuSeconds;
  const requested = out.recorder.requestedGpuSeconds(from);
  return {
    report,
    timing,
    wallMs: performance.now() - t0,
    loadMs,
    demandRatio: healthy > 0 ? requested / healthy : 0,
    allocatedDemandRatio: healthy > 0 ? allocatedDemand / healthy : 0,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    jobs: scenario.jobs.length,
    gpus: scenario.clusters.reduce((s, c) => s + c.nodes * c.gpusPerNode, 0),
    measuredJobs: scenario.jobs.filter((j) => j.submit >= from && j.submit < (scenario.simulation.until ?? Infinity)).length,
    capacityGpuHours: healthy / 3600,
    days: (out.recorder.clusterIntervals().reduce((m, c) => Math.max(m, c.end), 0) - from) / 86400,
  };
}

/** How many jobs were still waiting at the end, all and >= 64 GPUs, each with the p90 of their waits so far. */
function stillWaiting(report: Report): string {
  const { all, large } = report.queueWait.stillWaiting;
  const one = (w: WaitingCount): string => (w.count === 0 ? "0" : `${w.count.toLocaleString("en-US")} (${secs(w.p90)})`);
  return `${one(all)} / ${one(large)}`;
}

/** Short names of the preemption reasons, with their rules. */
const REASON_NAMES: Record<string, string> = {
  FAIR_SHARE: "fair share (R4)",
  DEBUG_LANE: "debug lane (R5)",
  UNALLOCATED_FOR_ALLOCATED: "unallocated work (R3)",
  DRAIN: "drain (R8)",
  PRIORITY: "priority",
};

/** The preempted GPU-hours of each reason as a share of capacity, with their counts, largest first. */
function byReason(r: Run): string {
  const rows = Object.entries(r.report.preemptions.byReason).sort((a, b) => b[1].gpuHours - a[1].gpuHours);
  if (rows.length === 0) return "—";
  return rows
    .map(
      ([reason, b]) =>
        `${REASON_NAMES[reason] ?? reason} ${pct(b.gpuHours / Math.max(1, r.capacityGpuHours))} (${b.count.toLocaleString("en-US")})`,
    )
    .join(", ");
}

/** The quality scenarios (issue 12): sustained overload on trees that do not follow demand (Philly, and Helios with large jobs), and merged Philly. */
const QUALITY_SCENARIOS = [
  "apps/simulator/scenarios/philly-overload.yaml",
  "apps/simulator/scenarios/philly-merged.yaml",
  "apps/simulator/scenarios/helios-overload.yaml",
];

/** One figure per policy, as rows: the issue's table, policies side by side, with the fairshare target. */
function printQuality(file: string, runs: Run[], load?: number): void {
  const first = runs[0]!;
  console.log(
    `\nScenario \`${file.slice(ROOT.length + 1)}\`${load === undefined ? "" : ` at load ${load}`}: ${first.jobs} jobs, ${first.gpus} GPUs, ${first.days.toFixed(1)} days measured; demand/capacity (${first.report.policy} run) ${first.demandRatio.toFixed(2)}x, of which allocated jobs ${first.allocatedDemandRatio.toFixed(2)}x.\n`,
  );
  const rows: [string, string, (r: Run) => string][] = [
    [
      "delivery overall / worst budget",
      ">= 98% / >= 95%",
      (r) => `${pct(r.report.delivery.overall)} / ${pct(r.report.delivery.min)}`,
    ],
    ["budgets >= 95% delivered", "all", (r) => `${r.report.delivery.budgetsAtLeast95} of ${r.report.delivery.budgets}`],
    [
      "occupancy (allocated + unallocated)",
      ">= 97%",
      (r) => `${pct(r.report.occupancy.total)} (${pct(r.report.occupancy.allocated)} + ${pct(r.report.occupancy.unallocated)})`,
    ],
    ["debug-lane p90 wait", "<= 30 s", (r) => secs(r.report.queueWait.debug.p90)],
    [">= 64-GPU jobs p90 wait", "<= 12 h", (r) => secs(r.report.queueWait.large.p90)],
    ["all jobs p50 / p90 wait", "", (r) => `${secs(r.report.queueWait.all.p50)} / ${secs(r.report.queueWait.all.p90)}`],
    // The waits above count starts: a job that never started is in none of them.
    ["still waiting at the end: all jobs / >= 64 GPUs (p90 so far)", "", (r) => stillWaiting(r.report)],
    [
      "preemptions per job / preempted GPU-h vs capacity",
      "<= 0.15 / <= 8%",
      (r) =>
        `${(r.report.preemptions.count / Math.max(1, r.measuredJobs)).toFixed(3)} / ${pct(r.report.preemptions.gpuHours / Math.max(1, r.capacityGpuHours))}`,
    ],
    ["preempted GPU-h by reason vs capacity (preemptions)", "", (r) => byReason(r)],
    ["lost GPU-hours (since checkpoint + restart)", "", (r) => `${Math.round(r.report.preemptions.lostGpuHours)}`],
    [
      "moves (R12) / idle GPU-h while allocated work was blocked",
      "",
      (r) => `${r.report.preemptions.moves} / ${r.report.fragmentation.idleGpuHoursWhileBlocked.toFixed(0)}`,
    ],
    ["completed", "", (r) => `${r.report.jobs.completed} of ${r.report.jobs.submitted}`],
    ["wall time", "", (r) => `${(r.wallMs / 1000).toFixed(1)} s`],
  ];
  console.log(`| figure | ${runs.map((r) => r.report.policy).join(" | ")} | target (fairshare) |`);
  console.log(`|---|${runs.map(() => "---|").join("")}---|`);
  for (const [name, target, f] of rows) console.log(`| ${name} | ${runs.map(f).join(" | ")} | ${target} |`);
  const fs = runs.find((r) => r.report.policy === "fairshare")?.report;
  if (fs) {
    console.log(
      `\nfairshare per budget: ${Object.entries(fs.delivery.perBudget)
        .map(([b, d]) => `${b} ${pct(d)}`)
        .join(", ")}`,
    );
  }
}

const pct = (x: number | null): string => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const secs = (x: number | null): string =>
  x === null ? "—" : x < 120 ? `${x} s` : x < 7200 ? `${(x / 60).toFixed(1)} min` : `${(x / 3600).toFixed(1)} h`;

/** A number option, or undefined when not given. */
function num(v: string): number | undefined {
  if (v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`--days, --from and --load take a number, got '${v}'`);
  return n;
}

if (mode === "quality") {
  const given = opt("scenario", "");
  const files = (given ? given.split(",") : QUALITY_SCENARIOS).map((f) => resolve(ROOT, f));
  const policies = opt("policies", "fairshare,priority,fifo").split(",") as PolicyName[];
  const days = opt("days", "");
  const from = opt("from", "");
  const load = opt("load", "");
  for (const file of files) {
    const runs = policies.map((p) => {
      const r = run(file, p, num(days), num(from), num(load));
      process.stderr.write(`${file.slice(ROOT.length + 1)} ${p}: ${(r.wallMs / 1000).toFixed(1)} s\n`);
      return r;
    });
    printQuality(file, runs, num(load));
  }
} else if (mode === "speed") {
  const file = resolve(ROOT, opt("scenario", "apps/simulator/scenarios/philly-all.yaml"));
  const policy = opt("policy", "fairshare") as PolicyName;
  const days = opt("days", "");
  const from = opt("from", "");
  const load = opt("load", "");
  const cpu0 = process.cpuUsage();
  const r = run(file, policy, num(days), num(from), num(load));
  const cpu = process.cpuUsage(cpu0);
  const t = r.timing;
  console.log(
    `Scenario \`${file.slice(ROOT.length + 1)}\`, policy ${policy}: ${r.jobs} jobs, ${r.gpus} GPUs; node ${process.version}, ${V8_SETTINGS}.\n`,
  );
  console.log(
    "| wall (load + simulate + measure) | CPU (user + sys) | load | events | events/s | cycles | time in the policy's cycles (wall / CPU) | peak RSS |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  console.log(
    `| ${(r.wallMs / 1000).toFixed(1)} s | ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s | ${(r.loadMs / 1000).toFixed(1)} s | ${r.report.sim.events} | ${Math.round(r.report.sim.events / (r.wallMs / 1000))} | ${t.cycles} | ${(t.cycleMs / 1000).toFixed(1)} s (${((100 * t.cycleMs) / r.wallMs).toFixed(0)}%)${CPU_PER_CYCLE ? ` / ${(t.cycleCpuMs / 1000).toFixed(1)} s` : ""} | ${Math.round(r.maxRssMb)} MB |`,
  );
  console.log("\nCycle time by pending jobs in the snapshot:\n");
  console.log("| pending | cycles | mean ms/cycle (wall) | mean ms/cycle (CPU) | total s (wall) |");
  console.log("|---|---|---|---|---|");
  t.byPending.forEach((b, i) => {
    if (b.count === 0) return;
    const hi = BUCKETS[i + 1]!;
    console.log(
      `| ${BUCKETS[i]}${hi === Infinity ? "+" : hi - 1 === BUCKETS[i] ? "" : `-${hi - 1}`} | ${b.count} | ${(b.ms / b.count).toFixed(2)} | ${CPU_PER_CYCLE ? (b.cpuMs / b.count).toFixed(2) : "-"} | ${(b.ms / 1000).toFixed(1)} |`,
    );
  });
  console.log(
    `\nmax pending ${t.maxPending}; report: ${JSON.stringify({ ...r.report, delivery: { ...r.report.delivery, perBudget: undefined } })}`,
  );
} else if (mode === "forecast") {
  const file = resolve(ROOT, opt("scenario", "apps/simulator/scenarios/philly-merged.yaml"));
  const t0 = performance.now();
  const f = runScenarioFile(file, { policy: "fairshare", forecast: true }).forecast!;
  console.log(
    `Scenario \`${file.slice(ROOT.length + 1)}\`, fairshare, start forecast at submit and requeue (worker bounds ${JSON.stringify(FORECAST_SIM_OPTIONS)}):\n`,
  );
  console.log("| starts with a forecast | unknown | median abs error | p90 abs error | within factor 2 | wall |");
  console.log("|---|---|---|---|---|---|");
  console.log(
    `| ${f.jobs} | ${f.unknown} | ${secs(f.medianAbsErrorS)} | ${secs(f.p90AbsErrorS)} | ${pct(f.withinFactor2)} | ${((performance.now() - t0) / 1000).toFixed(1)} s |`,
  );
} else {
  console.error(`unknown mode "${mode}" (quality | speed | forecast)`);
  process.exit(2);
}
