/**
 * Durations for tests and scenarios: "90s", "15m", "2h", "7d", "1h30m", or a number of seconds.
 */
export type Duration = string | number;

const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export function seconds(d: Duration): number {
  if (typeof d === "number") return d;
  const text = d.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const re = /(\d+)\s*([smhdw])/g;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * UNIT[m[2]!]!;
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== text.replace(/\s+/g, "").length) throw new Error(`not a duration: ${d}`);
  return total;
}
