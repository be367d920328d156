import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The CLI's help and messages say what happens in words first; a signal's name may follow in
 * parentheses for those who know it ("asked to stop (SIGTERM)"), never stand in for the words
 * ("time between SIGTERM and SIGKILL"). This reads the string literals of the CLI's sources.
 */
export function bareSignals(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  return [...code.matchAll(/"([^"\n]*)"|`([^`]*)`/g)]
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((t) => /(^|[^(])\bSIG(TERM|KILL)\b/.test(t));
}

const src = join(__dirname, "..", "src");

/** "0 = unallocated" with nothing after it: a lane's name where a researcher needs what it does. */
export function bareUnallocated(source: string): string[] {
  return [...source.matchAll(/"([^"\n]*)"|`([^`]*)`/g)]
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((t) => /= unallocated(?! \()/.test(t));
}

describe("unallocated in the CLI's help", () => {
  it("finds the word without its meaning (the check can fail)", () => {
    expect(bareUnallocated(`.option("--min-runtime <d>", "protected time; 0 = unallocated")`)).toHaveLength(1);
    expect(bareUnallocated(`"0 = unallocated (free on idle GPUs, preemptible at any moment)"`)).toEqual([]);
  });

  it("says what 0 means wherever --min-runtime takes it", () => {
    const found = readdirSync(src)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => bareUnallocated(readFileSync(join(src, f), "utf8")).map((t) => `${f}: ${t}`));
    expect(found).toEqual([]);
  });
});

describe("signals in the CLI's words", () => {
  it("finds a signal name standing in for words (the check can fail)", () => {
    expect(bareSignals(`.option("--grace <duration>", "time between SIGTERM and SIGKILL, with its unit: 30s, 5m")`)).toHaveLength(
      1,
    );
    expect(bareSignals("`asked to stop now (SIGTERM), stopped by force (SIGKILL) in ${left}`")).toEqual([]);
    expect(bareSignals("// exits 143 when stopped by SIGTERM")).toEqual([]);
  });

  it("names a signal only in parentheses after the words", () => {
    const found = readdirSync(src)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => bareSignals(readFileSync(join(src, f), "utf8")).map((t) => `${f}: ${t}`));
    expect(found).toEqual([]);
  });
});

/**
 * The debug lane's shape without its third condition: a job with a zero minimum runtime is unallocated
 * work however short (the lane is charged work), so "--min-runtime 0 --max-runtime 10m" was no debug job.
 */
export function debugLaneWithoutMinimum(source: string): string[] {
  return [...source.matchAll(/"([^"\n]*)"|`([^`]*)`/g)]
    .map((m) => m[1] ?? m[2] ?? "")
    .filter((t) => /: debug lane\b/.test(t) && !/minimum runtime above 0/.test(t));
}

describe("the debug lane in the CLI's help", () => {
  it("finds the lane's shape without the minimum runtime (the check can fail)", () => {
    expect(debugLaneWithoutMinimum(`"kill after this long (<= 15m and <= 8 GPUs: debug lane)"`)).toHaveLength(1);
    expect(debugLaneWithoutMinimum(`"(<= 15m, <= 8 GPUs and a minimum runtime above 0: debug lane)"`)).toEqual([]);
  });

  it("says wherever it names the lane that a zero minimum runtime never goes there", () => {
    const found = readdirSync(src)
      .filter((f) => f.endsWith(".ts"))
      .flatMap((f) => debugLaneWithoutMinimum(readFileSync(join(src, f), "utf8")).map((t) => `${f}: ${t}`));
    expect(found).toEqual([]);
  });
});
