import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * Durations go through the one formatter (formatDuration / formatExactDuration: "2 h 30 min"). One
 * built by hand read "0.5 h" for half an hour (the squatting policy) and "150.0 min" for two and a
 * half hours (the queue-wait chart's tooltip, beside an axis that said "2 h 30 min").
 * The charts' window buttons ("1 h", "24 h", "7 d") are labels, not measured durations.
 */
const LABELS = ["`${h} h`"];

export function handMadeDurations(source: string): string[] {
  return [...source.matchAll(/`[^`]*?\$\{[^{}]*\} (?:d|h|min|s)\b[^`]*`/g)].map((m) => m[0]).filter((m) => !LABELS.includes(m));
}

describe("durations on the pages", () => {
  it("finds a duration built by hand (the check can fail)", () => {
    expect(handMadeDurations("const hours = (sec: number) => `${Math.round((sec / 3600) * 10) / 10} h`;")).toHaveLength(1);
    expect(handMadeDurations('(v) => (v === null ? "—" : `${Number(v).toFixed(1)} min`)')).toHaveLength(1);
    expect(handMadeDurations("`set to ${formatExactDuration(current)}`")).toEqual([]);
  });

  it("writes every duration through the one formatter", () => {
    const found = pageSources().flatMap(({ file, source }) => handMadeDurations(source).map((m) => `${file}: ${m}`));
    expect(found).toEqual([]);
  });
});
