import type { Percentiles } from "./types";

/**
 * Nearest-rank percentiles (the value at rank ceil(p x n) in ascending order): always one of the
 * observed values, deterministic, and the same in the simulator, the worker and the UI.
 */
export function percentiles(values: readonly number[]): Percentiles {
  const n = values.length;
  if (n === 0) return { count: 0, p50: null, p90: null, p99: null, mean: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: n, p50: at(0.5), p90: at(0.9), p99: at(0.99), mean: sum / n };
}
