/**
 * Durations in scenario files and trace rows: a bare number is seconds (`90`), or a number with
 * one unit suffix: `s`, `m`, `h`, `d` (`90s`, `15m`, `2h`, `7d`). Fractions are allowed (`1.5h`);
 * the result is rounded to whole seconds.
 */
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const DURATION_RE = /^(\d+(?:\.\d+)?)\s*([smhd]?)$/;

/** Parses a duration; returns `undefined` when the text is not a duration. */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  }
  if (typeof value !== "string") return undefined;
  const m = DURATION_RE.exec(value.trim());
  if (!m) return undefined;
  const unit = (m[2] || "s") as keyof typeof UNIT_SECONDS;
  return Math.round(Number(m[1]) * UNIT_SECONDS[unit]);
}

/** Formats seconds as the shortest exact duration text (`7200` -> `2h`). */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ] as const) {
    if (seconds !== 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
