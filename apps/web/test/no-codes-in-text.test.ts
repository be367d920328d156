import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * People read node and job states in lower case ("ready nodes", "goes to repair"); the capitalised
 * codes belong to JSON and code. This reads the text the pages write between JSX tags and finds a
 * state code there ("GPUs on READY nodes"). Code is left out first: comments, string literals that
 * are only a code ("READY"), attribute values and object keys.
 */
const CODES = [
  "READY",
  "DRAINING",
  "CORDONED",
  "REPAIR",
  "DOWN",
  "PENDING",
  "RUNNING",
  "STOPPING",
  "HELD",
  "FAILED",
  "COMPLETED",
  "CANCELLED",
  "PREEMPTED",
];
const root = join(__dirname, "..");

function tsxFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : tsxFiles(p);
    return p.endsWith(".tsx") ? [p] : [];
  });
}

/** The JSX text of a file: what stands between `>` and `<` once code is removed. */
export function jsxText(source: string): string[] {
  const code = source
    .replace(/\{\/\*[\s\S]*?\*\/\}/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1")
    .replace(/"[A-Z_]+"/g, '""')
    .replace(/=>|>=|<=/g, " ")
    .replace(/\{[^{}<>]*\}/g, " ");
  return [...code.matchAll(/>([^<>{}]+)</g)].map((m) => m[1]!.replace(/\s+/g, " ").trim()).filter((t) => /[a-z]/.test(t));
}

describe("visible text", () => {
  it("finds a code written between tags (the check can fail)", () => {
    expect(jsxText(`<div className="tile-sub">GPUs on READY nodes</div>`)).toEqual(["GPUs on READY nodes"]);
    expect(jsxText(`<span>{s === "READY" ? "ok" : null} ready</span>`)).toEqual(["ready"]);
  });

  it("never shows a node or job state code in capitals", () => {
    const found: string[] = [];
    for (const file of [...tsxFiles(join(root, "app")), ...tsxFiles(join(root, "components"))]) {
      for (const text of jsxText(readFileSync(file, "utf8"))) {
        const code = CODES.find((c) => new RegExp(`\\b${c}\\b`).test(text));
        if (code) found.push(`${relative(root, file)}: "${text}"`);
      }
    }
    expect(found).toEqual([]);
  });
});
