import { describe, expect, it } from "vitest";
import { formatExactDuration } from "@tranche/contracts/format";
import { durationTicks } from "../lib/words";

/**
 * The "Queue wait by class" chart's y-axis read "0 s, 39 s, 1 min, 1 min, 2 min": recharts' own ticks
 * (multiples of 39.5 s) rounded down to the minute. Its ticks are now round durations.
 */
describe("durationTicks (lib/words.ts)", () => {
  const labels = (max: number) => durationTicks(max).map(formatExactDuration);

  it("gives round ticks that each read differently, the last covering the highest value", () => {
    expect(labels(158)).toEqual(["0 s", "1 min", "2 min", "3 min"]);
    expect(labels(110)).toEqual(["0 s", "30 s", "1 min", "1 min 30 s", "2 min"]);
    expect(labels(3 * 3600 + 100)).toEqual(["0 s", "1 h", "2 h", "3 h", "4 h"]);
    for (const max of [1, 7, 45, 61, 158, 599, 1000, 5000, 40_000, 200_000, 2_000_000]) {
      const ticks = durationTicks(max);
      const words = ticks.map(formatExactDuration);
      expect(new Set(words).size, `${max}: ${words.join(", ")}`).toBe(words.length);
      expect(ticks.length).toBeLessThanOrEqual(6);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
    }
  });

  it("has an axis with no data yet", () => {
    expect(labels(0)).toEqual(["0 s", "15 s", "30 s", "45 s", "1 min"]);
  });
});
