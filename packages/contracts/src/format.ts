// Formatting and parsing helpers without zod: browser pages import them from "@tranche/contracts/format"
// so a page that only shows durations does not ship the schema library.

// Durations: the core's one parser, for every entry point (form, tRPC, REST, CLI, scenario files).
export { parseDuration, durationProblem } from "@tranche/scheduler-core/duration";

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
