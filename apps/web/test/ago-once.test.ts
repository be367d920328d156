import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * `ago()` says "5 min ago" or "just now" itself: a page that writes " ago" after it showed
 * "4 min ago ago" (the notifications inbox, the squatting notice).
 */
describe('ago() (components/ui.tsx: "5 min ago", "just now")', () => {
  it("is never followed by another 'ago' on a page", () => {
    const found = pageSources().flatMap(({ file, source }) => (/\{ago\([^)]*\)\}\s*ago\b/.test(source) ? [file] : []));
    expect(found).toEqual([]);
  });
});
