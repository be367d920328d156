import { describe, expect, it } from "vitest";
import { pageSources } from "./page-sources";

/**
 * A symbol drawn for the eye (♥ for a heartbeat, ● for a bullet) is read aloud by a screen reader as
 * "black heart suit". Each stands in an element of its own marked aria-hidden, with words beside it
 * where it means something.
 */
const SYMBOLS = /[♥●✓✗✔✘⚠★◆▲▼]/g;

export function spokenSymbols(source: string): string[] {
  const code = source.replace(/\{\/\*[\s\S]*?\*\/\}/g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  return [...code.matchAll(SYMBOLS)]
    .filter((m) => !/<[a-z]+\b[^<>]*\baria-hidden\b[^<>]*>\s*$/.test(code.slice(Math.max(0, m.index - 200), m.index)))
    .map((m) =>
      code
        .slice(m.index, m.index + 20)
        .split("\n")[0]!
        .trim(),
    );
}

describe("symbols and screen readers", () => {
  it("finds a symbol a screen reader would read out (the check can fail)", () => {
    expect(spokenSymbols("{n.lastHeartbeatAt ? `♥ ${ago(n.lastHeartbeatAt, now)}` : null}")).toHaveLength(1);
    expect(spokenSymbols("<li><span>●</span> Protected runs</li>")).toHaveLength(1);
    expect(spokenSymbols('<span aria-hidden>♥</span><span className="sr-only">last heartbeat</span>')).toEqual([]);
  });

  it("every page hides its drawn symbols from screen readers", () => {
    const found = pageSources().flatMap(({ file, source }) => spokenSymbols(source).map((t) => `${file}: ${t}`));
    expect(found).toEqual([]);
  });
});
