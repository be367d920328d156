import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

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
    for (const { file, source } of pageSources()) {
      for (const text of jsxText(source)) {
        const code = CODES.find((c) => new RegExp(`\\b${c}\\b`).test(text));
        if (code) found.push(`${file}: "${text}"`);
      }
    }
    expect(found).toEqual([]);
  });

  it("writes no ∞ for a ratio: a budget without a share on the cluster reads the same words on every page", () => {
    const found = pageSources()
      .filter(({ source }) =>
        source
          .replace(/\/\*[\s\S]*?\*\//g, "")
          .replace(/(^|[^:])\/\/.*$/gm, "$1")
          .includes("∞"),
      )
      .map(({ file }) => file);
    expect(found).toEqual([]);
  });
});

/**
 * Percentile codes ("p50", "p90") are statisticians' shorthand: the measures page says "median" and
 * "90% within" (the wait 90% of starts beat). This reads the text between tags and the string
 * literals of a file, comments left out; property names (allP90, .p50) are code and not read.
 */
export function percentileCodes(source: string): string[] {
  return readableText(source).filter((t) => /(^|[^.\w])p(50|90|95|99)\b/i.test(t));
}

/** The text between tags and the string literals of a file, comments left out. */
export function readableText(source: string): string[] {
  const code = source
    .replace(/\{\/\*[\s\S]*?\*\/\}/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:])\/\/.*$/gm, "$1");
  const strings = [...code.matchAll(/"([^"\n]*)"|`([^`]*)`/g)].map((m) => m[1] ?? m[2] ?? "");
  return [...jsxText(code), ...strings];
}

/**
 * Words a researcher cannot read: signal names ("gets SIGTERM now"), a ratio as a bare number
 * ("projected ratio 5.60") and "uncordon". Pages say "asked to stop", "stopped by force", what a ratio
 * means, and "return to service" (the Nodes page's own words for it, and the audit log's).
 */
export function jargon(source: string): string[] {
  return readableText(source).filter((t) => /\bSIG(TERM|KILL)\b|ratio \d|\buncordon/i.test(t));
}

describe("no statisticians' shorthand", () => {
  it("finds a percentile code in visible text (the check can fail)", () => {
    expect(percentileCodes(`<div className="tile-label">Queue wait p50 / p90</div>`)).toEqual(["Queue wait p50 / p90"]);
    expect(percentileCodes(`<Line dataKey="debug p90" />`)).toEqual(["debug p90"]);
    expect(percentileCodes("{d.queueWaitWindow.all.p50 != null ? formatDuration(q.allP90) : null} // the p90")).toEqual([]);
  });

  it("never shows p50 / p90 where a person reads", () => {
    const found = pageSources().flatMap(({ file, source }) => percentileCodes(source).map((t) => `${file}: ${t}`));
    expect(found).toEqual([]);
  });
});

describe("no jargon in sentences", () => {
  it("finds a signal name or a bare ratio in visible text (the check can fail)", () => {
    expect(jargon("confirm(`Stop job #${id}? It gets SIGTERM now and SIGKILL after its grace period.`)")).toHaveLength(1);
    expect(jargon(`<p>budget lab/x, projected ratio 5.60</p>`)).toEqual(["budget lab/x, projected ratio 5.60"]);
    expect(jargon(`<p>It is asked to stop now and stopped by force after its grace period.</p>`)).toEqual([]);
    expect(jargon(`<button className="btn">\n  Uncordon\n</button>`)).toHaveLength(1);
    expect(jargon('useMutation(trpc.node.uncordon.mutationOptions(done("returned to service")))')).toEqual([]);
  });

  it("never says SIGTERM, SIGKILL, uncordon or a bare ratio where a person reads", () => {
    const found = pageSources().flatMap(({ file, source }) => jargon(source).map((t) => `${file}: ${t}`));
    expect(found).toEqual([]);
  });

  it("titles the job timeline from a fixed map of phrases, never by rewriting an event's code", () => {
    const found = pageSources()
      .filter(({ source }) => /\.toLowerCase\(\)\.replace\(\/_\/g/.test(source))
      .map(({ file }) => file);
    expect(found).toEqual([]);
  });
});
