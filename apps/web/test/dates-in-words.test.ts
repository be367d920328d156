import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * Dates and times go through components/ui.tsx (when, clock, day: "6 Dec, 11:17:57", "19:32",
 * "6 Jan 2027"). A bare toLocaleString() / toLocaleDateString() formats in the browser's own locale:
 * "12/6/2026, 11:17:57 AM" on one page beside "6 Dec, 11:17:57" on the next.
 */
export function browserLocaleDates(source: string): string[] {
  return [...source.matchAll(/\.toLocale(?:Date|Time)?String\(\s*\)/g)].map((m) => m[0]);
}

describe("dates on the pages", () => {
  it("finds a date formatted in the browser's own locale (the check can fail)", () => {
    expect(browserLocaleDates("{new Date(t.expiresAt).toLocaleDateString()}")).toEqual([".toLocaleDateString()"]);
    expect(browserLocaleDates('d.toLocaleDateString("en-GB", { day: "numeric" })')).toEqual([]);
  });

  it("never formats a date in the browser's own locale", () => {
    const found = pageSources().flatMap(({ file, source }) => browserLocaleDates(source).map((m) => `${file}: ${m}`));
    expect(found).toEqual([]);
  });
});
