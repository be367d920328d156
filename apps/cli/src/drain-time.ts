import { usageError } from "./options";

/**
 * `tranche node drain --at`: a date and a time of day, read as `date -d` reads them: in the local time
 * zone (TZ) unless the text names its own ("Z", "UTC", "+01:00", "+0100"). Only year-month-day
 * ("2026-12-12 02:00", "2026-12-12T02:00:30"): "12/11 02:00" reads as two different days in two
 * countries, and a weekday or a time alone leaves the day to a guess. A local time that a clock change
 * skips, or passes twice, is refused too: its offset says which one. Returns ISO 8601 with its zone.
 */
export function parseDrainAt(raw: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?\s*(Z|UTC|[+-]\d{2}:?\d{2})?$/i.exec(raw.trim());
  if (!m)
    throw usageError(
      `--at takes a date and a time as year-month-day hours:minutes, such as "2026-12-12 02:00" (your time zone) or "2026-12-12 02:00 +01:00", got '${raw}'`,
    );
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  const zone = m[7];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59)
    throw usageError(`--at '${raw}' is not a date and time`);
  if (zone !== undefined) {
    const offset = /^(z|utc)$/i.test(zone) ? 0 : offsetMinutes(zone);
    const t = Date.UTC(y, mo - 1, d, h, mi, s) - offset * 60_000;
    if (new Date(t + offset * 60_000).getUTCDate() !== d) throw usageError(`--at '${raw}' is not a date and time`);
    return new Date(t).toISOString();
  }
  const t = new Date(y, mo - 1, d, h, mi, s);
  const same = (x: Date) =>
    x.getFullYear() === y && x.getMonth() === mo - 1 && x.getDate() === d && x.getHours() === h && x.getMinutes() === mi;
  if (!same(t))
    throw usageError(
      `--at '${raw}' does not exist in your time zone (the clocks skip it, or there is no such day): give another time, or add its offset`,
    );
  const hour = 3600_000;
  if (same(new Date(t.getTime() - hour)) || same(new Date(t.getTime() + hour)))
    throw usageError(`--at '${raw}' happens twice in your time zone (the clocks go back then): add its offset, such as +01:00`);
  return t.toISOString();
}

/** "+01:00" or "+0100" -> 60. */
function offsetMinutes(zone: string): number {
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
}
