import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * Two meanings, one word each, as `tranche nodes` says them: GPUs held by jobs are "in use", the busy
 * percentage the agents report (nvidia-smi) is "utilization". The nodes page said "GPUs busy" and
 * "5/8 busy" for the first and "GPU busy 90%" for the second. A percentage read as "under 5% busy" (the
 * squatting rule) is the second meaning in its own words, and stays.
 */
export function busyLabels(source: string): string[] {
  return [...source.matchAll(/GPUs? busy\b|\} busy\b|"BUSY"/g)].map((m) => m[0]);
}

describe("GPUs in use and utilization", () => {
  it("finds busy used as a label (the check can fail)", () => {
    expect(busyLabels('<div className="tile-label">GPUs busy</div>')).toEqual(["GPUs busy"]);
    expect(busyLabels("{n.usedGpus}/{n.gpuCount} busy")).toEqual(["} busy"]);
    expect(busyLabels("<dt>GPU busy</dt>")).toEqual(["GPU busy"]);
    expect(busyLabels("its GPUs under 5% busy for 30 minutes")).toEqual([]);
  });

  it("says GPUs in use for GPUs held by jobs and utilization for the busy percentage, never busy alone", () => {
    const found = pageSources().flatMap(({ file, source }) => busyLabels(source).map((m) => `${file}: ${m}`));
    expect(found).toEqual([]);
  });
});
