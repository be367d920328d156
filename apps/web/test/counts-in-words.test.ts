import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * A count beside its noun goes through plural() ("1 GPU", "2 GPUs", "1 time"): a number written
 * straight before a plural noun read "1 GPUs per person", "1 times", "1 nodes × 8" whenever it was one.
 * This finds `{n} GPUs` in JSX and `${n} GPUs` in template strings; a name before the noun
 * ("h100 nodes") is not a count and is listed as such.
 */
const NOUNS = "GPUs|GPU-hours|times|events|nodes|jobs|people|budgets|tokens|runs|tasks|members";
const NOT_COUNTS = ["${clusterName} nodes"];

export function bareCounts(source: string): string[] {
  return [...source.matchAll(new RegExp(`\\$?\\{[^{}]*\\} (?:${NOUNS})\\b`, "g"))]
    .map((m) => m[0])
    .filter((m) => !NOT_COUNTS.includes(m));
}

describe("counts and their nouns", () => {
  it("finds a count written straight before a plural noun (the check can fail)", () => {
    expect(bareCounts("<dd>{job.requeueCount} times</dd>")).toEqual(["{job.requeueCount} times"]);
    expect(bareCounts("`${budget.maxGpusPerUser} GPUs per person`")).toEqual(["${budget.maxGpusPerUser} GPUs"]);
    expect(bareCounts('`${plural(n, "GPU")} per person`')).toEqual([]);
  });

  it("says every count through plural(), never '1 GPUs'", () => {
    const found = pageSources().flatMap(({ file, source }) => bareCounts(source).map((m) => `${file}: ${m}`));
    expect(found).toEqual([]);
  });
});
