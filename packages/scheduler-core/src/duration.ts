/**
 * The one duration parser of every entry point (CLI, REST and tRPC contracts, the web form, scenario
 * files and trace rows): whole seconds as a number or text (`5400`), or numbers with units s, m, h,
 * d, alone or combined (`5400s`, `90m`, `1.5h`, `1h30m`, `1h 30m`, `7d`). The total must be whole
 * seconds and not negative. Anything else gets the same message everywhere (durationProblem).
 * No imports: browser pages load it without the rest of the core.
 */
const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const PART = /(\d+(?:\.\d+)?)\s*([smhd])/g;
const WHOLE = /^(?:\d+(?:\.\d+)?\s*[smhd]\s*)+$/;

/** Seconds, or null when `value` is not a duration (see durationProblem for the message). */
export function parseDuration(value: unknown): number | null {
  let total: number;
  if (typeof value === "number") total = value;
  else if (typeof value === "string") {
    const s = value.trim().toLowerCase();
    if (/^\d+(\.\d+)?$/.test(s)) total = Number(s);
    else if (WHOLE.test(s)) {
      total = 0;
      for (const m of s.matchAll(PART)) total += Number(m[1]) * UNIT[m[2]!]!;
      total = Math.round(total * 1000) / 1000; // 1.1h is 3960 s, not 3960.0000000000005
    } else return null;
  } else return null;
  return Number.isFinite(total) && total >= 0 && Number.isInteger(total) ? total : null;
}

/** The one message for a value that is not a duration, naming the field. */
export function durationProblem(field: string, value: unknown): string {
  // "-1h" is a duration with a sign, not nonsense: say what is wrong with it.
  const text = typeof value === "string" ? value.trim() : "";
  if (text.startsWith("-") && parseDuration(text.slice(1)) !== null) return `${field} must not be negative, got ${text}`;
  const n =
    typeof value === "number" ? value : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : null;
  if (n !== null && n < 0) return `${field} must not be negative, got ${String(value).trim()}`;
  if (n !== null && !Number.isInteger(n)) return `${field} must be whole seconds, got ${String(value).trim()}`;
  return `${field} "${String(value)}" is not a duration: use whole seconds (5400) or units s, m, h, d (5400s, 90m, 1h30m)`;
}
