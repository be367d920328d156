/**
 * Deterministic wording for sentences (R10): the same numbers always read the same, whatever the
 * locale or time zone of the process (no Intl, no Date).
 * No imports: browser pages load it (@tranche/scheduler-core/format) without the rest of the core.
 */

/**
 * 0 s, 45 s, 12 min, 1 h 5 min, 2 d 3 h: the units the web app and the CLI write (whole words would
 * be long in a sentence; "12m" read as metres or months). Rounds down to the unit shown, so a lower
 * bound ("at least 1 h 5 min") stays one.
 * The one formatter of durations: reason sentences, and (through @tranche/contracts/format) every
 * page and the CLI.
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "forever";
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) {
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  return h === 0 ? `${d} d` : `${d} d ${h} h`;
}

/**
 * Exact, in formatDuration's units, for a contract's own values and the limits in error messages:
 * 9 h, 10 min 1 s, 1 d 2 h 30 min (never rounded, unlike formatDuration).
 */
export function formatExactDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return String(seconds);
  let s = Math.abs(Math.round(seconds));
  if (s === 0) return "0 s";
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["min", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0) parts.push(`${n} ${unit}`);
  }
  return (seconds < 0 ? "-" : "") + parts.join(" ");
}

/**
 * "now", or "in 1 h 5 min", as a person says when something happens. No raw timestamp: the time
 * itself travels as a number in the details (tools read that; pages show it as wall-clock).
 */
export function formatWhen(t: number, now: number): string {
  return t <= now ? "now" : `in ${formatDuration(t - now)}`;
}

/**
 * "at once", or "within 1 min 30 s": how long a start waits for leaving jobs to exit. Exact: it is an
 * upper bound (their grace), which rounding down would understate ("within 1 min" for 90 s).
 */
export function formatWithin(t: number, now: number): string {
  return t <= now ? "at once" : `within ${formatExactDuration(t - now)}`;
}

/** A lookback window as people say it: "7 days", "12 hours". */
function windowWords(seconds: number): string {
  if (seconds > 0 && seconds % 86_400 === 0) return plural(seconds / 86_400, "day");
  if (seconds > 0 && seconds % 3600 === 0) return plural(seconds / 3600, "hour");
  return formatDuration(seconds);
}

/**
 * What a budget's projected ratio (SPEC R2: its usage plus an hour of the GPUs it holds now, over its
 * entitlement in the lookback window) means: "has used 5.6 times its share over the last 7 days, counting the next hour
 * of what it runs now" (the projection, so the words match the number that orders the queue, not the
 * 7-day ratio beside it, which on a young cluster can be far lower), "has used 40% of its share ...", "has no share here" (no entitlement). Reasons say
 * this rather than a bare number a researcher cannot read.
 */
export function shareUsedText(ratio: number, w: RatioWindow): string {
  if (!Number.isFinite(ratio)) return "has no share here";
  const ahead = w.projectionHorizon === 3600 ? "hour" : windowWords(w.projectionHorizon);
  return `has used ${shareUsed(ratio)} over the last ${windowWords(w.lookbackWindow)}${w.projectionHorizon > 0 ? `, counting the next ${ahead} of what it runs now` : ""}`;
}

/** What the ratios in sentences are over: the policy's lookback window and projection horizon (seconds). */
export interface RatioWindow {
  lookbackWindow: number;
  projectionHorizon: number;
}

/** A finite projected ratio as the part of its share a budget used: "40% of its share", "5.6 times its share". */
export function shareUsed(ratio: number): string {
  return ratio < 1 ? `${Math.round(ratio * 100)}% of its share` : `${ratio.toFixed(1)} times its share`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

const ordinal = (n: number): string => {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th")}`;
};

/**
 * A job's 1-based place in its cluster's order this cycle (R2: the order the cycle tries jobs in), as a
 * person says it: "next in line", "4th in line". A started job was "first in line", not next.
 */
export function lineText(position: number, started = false): string {
  return position === 1 ? (started ? "first in line" : "next in line") : `${ordinal(position)} in line`;
}

export function formatPercent(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

// A start forecast's unknown in a table's few words (forecast-words.ts), for the CLI and the pages.
export { shortForecastWhy } from "./forecast-words";
