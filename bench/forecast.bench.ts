/**
 * Benchmark of the start forecast (issue 14, "when will it start"): forecastStarts on the
 * scheduler-core bench's cluster (1,024 nodes x 8 GPUs, 2,000 running jobs, 200 budgets) with 1,000 and
 * 10,000 pending jobs, as the worker runs it: a full forecast (every pending job, at most maxSteps cycles)
 * and the head-of-queue refresh (a few cycles).
 *
 *   node --import tsx bench/forecast.bench.ts [--runs 3] [--seed 42] [--steps 40] [--max-jobs 500] [--head-steps 8]
 *
 * Defaults are the worker's bounds (apps/worker/src/forecast.ts): 40 cycles, the first 500 jobs of the order.
 */
import { defaultPolicy, forecastStarts } from "@tranche/scheduler-core";
import { generateSnapshot } from "./scheduler-core.bench";

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const runs = arg("runs", 3);
const seed = arg("seed", 42);
const steps = arg("steps", 40);
const maxJobs = arg("max-jobs", 500);
const headSteps = arg("head-steps", 8);
const NOW = 1_800_000_000;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

for (const pending of process.argv.includes("--only-1k") ? [1_000] : [1_000, 10_000]) {
  const shape = { nodes: 1024, gpusPerNode: 8, running: 2000, pending, fanout: [5, 4, 10] };
  const snap = generateSnapshot(shape, seed, NOW);
  for (const [label, maxSteps] of [
    ["full", steps],
    ["head", headSteps],
  ] as const) {
    const ms: number[] = [];
    let cycles = 0;
    let known = 0;
    for (let r = 0; r < runs; r++) {
      const copy = structuredClone(snap);
      const t0 = performance.now();
      const out = forecastStarts(copy, defaultPolicy, NOW, { maxSteps, maxJobs });
      ms.push(performance.now() - t0);
      cycles = out.cycleTimes.length;
      known = out.starts.filter((s) => s.at !== null).length;
    }
    console.log(
      `forecast ${label.padEnd(4)} pending=${pending}: median ${median(ms).toFixed(0)} ms over ${runs} runs (${cycles} cycles, ${known}/${pending} with a start; maxSteps ${maxSteps})`,
    );
  }
}
