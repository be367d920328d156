/**
 * Simulator benchmarks (issue 4, "Quality and speed"). Prints markdown for bench/README.md.
 *
 *   node --import tsx bench/simulator.bench.ts quality [--scenario FILE] [--policies fairshare,priority,fifo]
 *   node --import tsx bench/simulator.bench.ts speed   [--scenario FILE] [--policy fairshare]
 *
 * quality: the merged Philly scenario where demand is at least twice the capacity
 *   (apps/simulator/scenarios/philly-merged.yaml); one row per policy; targets for fairshare:
 *   delivery.overall >= 0.98, >= 90% of budgets >= 0.95, occupancy.total >= 0.97, debug p90 <= 60 s.
 *   "demand/capacity" is measured: the mean GPUs asked by all jobs (pending or running, from submit
 *   to their end) over the mean healthy GPUs; the allocated jobs' share of it is printed too.
 * speed: every Philly job (apps/simulator/scenarios/philly-all.yaml, ~110k jobs); target <= 20 s
 *   wall and <= 1 GB. Reports events/s, the share of time inside the policy's cycle function, and
 *   the cycle time by pending-queue size (where the time goes).
 *
 * Traces are read from <repo root>/data/traces (or $TRANCHE_TRACES_DIR).
 */
import { resolve } from "node:path";
import type { ClusterSnapshot, CycleResult, PolicyConfig } from "@tranche/scheduler-core";
import {
  buildReport,
  createEventSink,
  loadScenarioFile,
  policyConfig,
  POLICIES,
  simulate,
  type PolicyName,
  type Report,
} from "@tranche/simulator";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const mode = args[0] ?? "quality";
const opt = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};

const BUCKETS = [0, 1, 100, 1000, 5000, 20000, Infinity];
interface Timing {
  cycles: number;
  cycleMs: number;
  byPending: { count: number; ms: number }[];
  maxPending: number;
}

function timed(policy: PolicyName): {
  fn: () => (s: ClusterSnapshot, p: PolicyConfig, now: number) => CycleResult;
  timing: Timing;
} {
  const timing: Timing = { cycles: 0, cycleMs: 0, byPending: BUCKETS.slice(1).map(() => ({ count: 0, ms: 0 })), maxPending: 0 };
  return {
    timing,
    fn: () => {
      const cycle = POLICIES[policy]();
      return (s, p, now) => {
        const t0 = performance.now();
        const r = cycle(s, p, now);
        const ms = performance.now() - t0;
        const n = s.pending.length;
        timing.cycles++;
        timing.cycleMs += ms;
        timing.maxPending = Math.max(timing.maxPending, n);
        let b = 0;
        while (n >= BUCKETS[b + 1]!) b++;
        timing.byPending[b]!.count++;
        timing.byPending[b]!.ms += ms;
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
}

function run(file: string, policy: PolicyName): Run {
  const t0 = performance.now();
  const scenario = loadScenarioFile(file);
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
  };
}

const pct = (x: number | null): string => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const secs = (x: number | null): string =>
  x === null ? "—" : x < 120 ? `${x} s` : x < 7200 ? `${(x / 60).toFixed(1)} min` : `${(x / 3600).toFixed(1)} h`;

if (mode === "quality") {
  const file = resolve(ROOT, opt("scenario", "apps/simulator/scenarios/philly-merged.yaml"));
  const policies = opt("policies", "fairshare,priority,fifo").split(",") as PolicyName[];
  const runs = policies.map((p) => {
    const r = run(file, p);
    process.stderr.write(`${p}: ${(r.wallMs / 1000).toFixed(1)} s\n`);
    return r;
  });
  const first = runs[0]!;
  console.log(
    `Scenario \`${file.slice(ROOT.length + 1)}\`: ${first.jobs} jobs, ${first.gpus} GPUs; measured demand/capacity (${first.report.policy} run) ${first.demandRatio.toFixed(2)}x, of which allocated jobs ${first.allocatedDemandRatio.toFixed(2)}x.\n`,
  );
  console.log(
    "| policy | delivery | budgets >= 95% | min budget | occupancy (alloc + unalloc) | debug p90 wait | all p50 / p90 wait | large p90 wait | preemptions (GPU-h) | completed | wall |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of runs) {
    const x = r.report;
    console.log(
      `| ${x.policy} | ${pct(x.delivery.overall)} | ${x.delivery.budgetsAtLeast95} of ${x.delivery.budgets} | ${pct(x.delivery.min)} | ${pct(x.occupancy.total)} (${pct(x.occupancy.allocated)} + ${pct(x.occupancy.unallocated)}) | ${secs(x.queueWait.debug.p90)} | ${secs(x.queueWait.all.p50)} / ${secs(x.queueWait.all.p90)} | ${secs(x.queueWait.large.p90)} | ${x.preemptions.count} (${x.preemptions.gpuHours.toFixed(0)}) | ${x.jobs.completed} of ${x.jobs.submitted} | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
  }
  // R12 and SPEC §4: moves counted apart from preemptions, and idle GPU-hours while allocated work was blocked.
  for (const r of runs)
    console.log(
      `\n${r.report.policy}: ${r.report.preemptions.moves} moves (consolidation); fragmentation ${r.report.fragmentation.idleGpuHoursWhileBlocked.toFixed(0)} idle GPU-h while allocated work was blocked`,
    );
  const fs = runs.find((r) => r.report.policy === "fairshare")?.report;
  if (fs) {
    const checks = [
      [`delivery.overall ${pct(fs.delivery.overall)} >= 98%`, (fs.delivery.overall ?? 0) >= 0.98],
      [
        `budgets >= 95%: ${fs.delivery.budgetsAtLeast95} of ${fs.delivery.budgets} (>= 90%)`,
        fs.delivery.budgetsAtLeast95 >= 0.9 * fs.delivery.budgets,
      ],
      [`occupancy.total ${pct(fs.occupancy.total)} >= 97%`, (fs.occupancy.total ?? 0) >= 0.97],
      [`debug p90 ${secs(fs.queueWait.debug.p90)} <= 60 s`, (fs.queueWait.debug.p90 ?? Infinity) <= 60],
      [`demand/capacity ${first.demandRatio.toFixed(2)}x >= 2x`, first.demandRatio >= 2],
    ] as const;
    console.log(`\nfairshare targets: ${checks.map(([t, ok]) => `${ok ? "PASS" : "FAIL"} ${t}`).join("; ")}`);
    console.log(
      `\nfairshare per budget: ${Object.entries(fs.delivery.perBudget)
        .map(([b, d]) => `${b} ${pct(d)}`)
        .join(", ")}`,
    );
  }
} else if (mode === "speed") {
  const file = resolve(ROOT, opt("scenario", "apps/simulator/scenarios/philly-all.yaml"));
  const policy = opt("policy", "fairshare") as PolicyName;
  const r = run(file, policy);
  const t = r.timing;
  console.log(`Scenario \`${file.slice(ROOT.length + 1)}\`, policy ${policy}: ${r.jobs} jobs, ${r.gpus} GPUs.\n`);
  console.log(
    "| wall (load + simulate + measure) | load | events | events/s | cycles | time in the policy's cycles | peak RSS |",
  );
  console.log("|---|---|---|---|---|---|---|");
  console.log(
    `| ${(r.wallMs / 1000).toFixed(1)} s | ${(r.loadMs / 1000).toFixed(1)} s | ${r.report.sim.events} | ${Math.round(r.report.sim.events / (r.wallMs / 1000))} | ${t.cycles} | ${(t.cycleMs / 1000).toFixed(1)} s (${((100 * t.cycleMs) / r.wallMs).toFixed(0)}%) | ${Math.round(r.maxRssMb)} MB |`,
  );
  console.log("\nCycle time by pending jobs in the snapshot:\n");
  console.log("| pending | cycles | mean ms/cycle | total s |");
  console.log("|---|---|---|---|");
  t.byPending.forEach((b, i) => {
    if (b.count === 0) return;
    const hi = BUCKETS[i + 1]!;
    console.log(
      `| ${BUCKETS[i]}${hi === Infinity ? "+" : hi - 1 === BUCKETS[i] ? "" : `-${hi - 1}`} | ${b.count} | ${(b.ms / b.count).toFixed(2)} | ${(b.ms / 1000).toFixed(1)} |`,
    );
  });
  console.log(
    `\nmax pending ${t.maxPending}; report: ${JSON.stringify({ ...r.report, delivery: { ...r.report.delivery, perBudget: undefined } })}`,
  );
} else {
  console.error(`unknown mode "${mode}" (quality | speed)`);
  process.exit(2);
}
