// Formatting and parsing helpers without zod: browser pages import them from "@tranche/contracts/format"
// so a page that only shows durations does not ship the schema library.

/**
 * Durations travel as whole seconds (a number) or as a short string: "90", "90s", "15m", "2h",
 * "1h30m", "1d". Every entry point (form, tRPC, REST, CLI) reads them with the same parser.
 */
const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds for a duration string or number; null when it cannot be read. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  const s = value.trim().toLowerCase();
  if (s === "") return null;
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)\s*([smhd])/g;
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * UNIT[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed !== s.replace(/\s+/g, "").length && consumed !== s.length) return null;
  if (consumed === 0) return null;
  return Math.round(total);
}

/** "2 h", "1 h 30 min", "45 s", "0 s". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "—";
  const neg = seconds < 0;
  let s = Math.abs(Math.round(seconds));
  if (s === 0) return "0 s";
  const d = Math.floor(s / 86_400);
  s -= d * 86_400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const parts = [d && `${d} d`, h && `${h} h`, m && `${m} min`, s && `${s} s`].filter(Boolean) as string[];
  return (neg ? "-" : "") + parts.slice(0, 2).join(" ");
}
