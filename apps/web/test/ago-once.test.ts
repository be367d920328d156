import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `ago()` says "5 min ago" or "just now" itself: a page that writes " ago" after it showed
 * "4 min ago ago" (the notifications inbox, the squatting notice).
 */
const root = join(__dirname, "..");
function tsxFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : tsxFiles(p);
    return p.endsWith(".tsx") ? [p] : [];
  });
}

describe('ago() (components/ui.tsx: "5 min ago", "just now")', () => {
  it("is never followed by another 'ago' on a page", () => {
    const found = [...tsxFiles(join(root, "app")), ...tsxFiles(join(root, "components"))].flatMap((f) =>
      /\{ago\([^)]*\)\}\s*ago\b/.test(readFileSync(f, "utf8")) ? [relative(root, f)] : [],
    );
    expect(found).toEqual([]);
  });
});
