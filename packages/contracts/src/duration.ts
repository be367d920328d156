import { z } from "zod";

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

/** A duration field: seconds (number) or a string such as "2h"; always yields whole seconds. */
export function duration(field: string) {
  return z
    .union([z.number(), z.string()])
    .describe(`${field}: whole seconds, or a duration such as "90s", "15m", "2h", "1h30m"`)
    .transform((v, ctx) => {
      const secs = parseDuration(v);
      if (secs === null) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} '${v}' is not a duration (use seconds or e.g. 15m, 2h)` });
        return z.NEVER;
      }
      if (!Number.isInteger(secs)) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} must be whole seconds, got ${secs}` });
        return z.NEVER;
      }
      if (secs < 0) {
        ctx.issues.push({ code: "custom", input: v, message: `${field} must not be negative, got ${secs} s` });
        return z.NEVER;
      }
      return secs;
    });
}
