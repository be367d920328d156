import { countdownWords, formatDuration } from "@tranche/contracts/format";

/** How a command prints: `value` as JSON under --json, else the words `text()` gives (main.ts). */
export type Out = (value: unknown, text: () => string) => void;

/** The control characters but line breaks and tabs: C0, DEL and C1. */
// eslint-disable-next-line no-control-regex -- the control characters are what this matches
const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text as a terminal may print it: control characters other than line breaks and tabs removed (ESC,
 * BEL, CR, DEL, C1), so a job name, person's name or reason that someone else wrote cannot retitle,
 * clear or recolour the terminal of whoever reads it. Every text answer and error goes through this
 * (main.ts); --json needs nothing, JSON escapes them.
 */
/**
 * Characters that reorder the text around them (U+202A..U+202E, U+2066..U+2069): names no longer
 * take them, and one stored before, or a job's output, must not make the rest of the line read
 * backwards on a terminal that lays out right-to-left text.
 */
const REORDERING_CHARS = /[\u202a-\u202e\u2066-\u2069]/g;

export function printable(s: string): string {
  return s.replace(CONTROL_CHARS, "").replace(REORDERING_CHARS, "");
}

/**
 * A job's output as a terminal shows it (`tranche logs`): its control characters written out as `cat -v`
 * and `less` write them (ESC as ^[, CR as ^M, DEL as ^?, a C1 character as <U+009B>) instead of sent,
 * keeping line breaks and tabs. Nothing it prints can move the cursor, clear the screen, retitle the
 * window, write the clipboard (OSC 52) or, with a CR, overwrite the node a line starts with. Colour
 * sequences (ESC[31m) are written out too: telling a harmless one from the rest means parsing them, and
 * `--raw` prints them as they are. Unlike printable(), nothing is dropped: a log is read to debug it.
 */
export function visible(s: string): string {
  const named = (c: string) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`;
  return s
    .replace(CONTROL_CHARS, (c) => {
      const code = c.charCodeAt(0);
      if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
      if (code === 0x7f) return "^?";
      return named(c);
    })
    .replace(REORDERING_CHARS, named);
}

/** Plain-text tables for terminals: columns padded to the widest cell, long cells cut with … */
export function table(head: string[], rows: (string | number)[][], maxWidth = process.stdout.columns || 160): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const total = widths.reduce((s, w) => s + w + 2, 0);
  if (total > maxWidth) {
    const last = widths.length - 1;
    widths[last] = Math.max(20, widths[last]! - (total - maxWidth));
  }
  const fit = (s: string, w: number) => (s.length > w ? s.slice(0, w - 1) + "…" : s.padEnd(w));
  const line = (r: string[]) =>
    r
      .map((c, i) => fit(c, widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...cells.map(line)].join("\n");
}

/** How long ago, in the words of every page and reason sentence (formatDuration): "45s", "1h 05m", "2d 3h". */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "-";
  return formatDuration(Math.max(0, Math.round((now - Date.parse(iso)) / 1000)));
}

/** "1 GPU", "8 GPUs". */
export function gpus(n: number): string {
  return `${n} GPU${n === 1 ? "" : "s"}`;
}

/**
 * What `tranche cancel` says of a running job it stopped: in the words of the job page, with the
 * signals in brackets for those who handle them, and the time left in words, not a timestamp, never
 * less than is left (a 2 min grace read "1 min" a second after the cancel).
 */
export function stoppingText(id: number, graceUntil: string | null, now = Date.now()): string {
  const left = graceUntil ? (Date.parse(graceUntil) - now) / 1000 : null;
  const force = left === null ? "" : `, and stopped by force (SIGKILL) in ${countdownWords(left)} if it still runs`;
  return `Job #${id} is stopping: asked to stop now (SIGTERM)${force}.`;
}

/**
 * Seconds until `iso`, to the nearest minute (negative once past): how long a link or token stays good,
 * so a 3-day link read a second after it was made is still "3 d", not "2 d 23 h".
 */
export function secondsLeft(iso: string, now = Date.now()): number {
  return Math.round((Date.parse(iso) - now) / 60_000) * 60;
}

/**
 * How long a one-time link or token stays good, in words a person reads: "valid for 3 d, until
 * 2026-12-09 17:43 UTC" (the exact moment in UTC, to the minute, for a server in another zone).
 */
export function validity(expiresAt: string, now = Date.now()): string {
  const left = Math.max(0, secondsLeft(expiresAt, now));
  return `valid for ${formatDuration(left)}, until ${new Date(expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * A moment as the web app's pages write it, in this terminal's time zone: "6 Dec, 15:41:34" (never a
 * raw ISO timestamp, which reads as local time while it is UTC).
 */
export function when(iso: string, timeZone?: string): string {
  return new Date(iso).toLocaleString("en-GB", {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    ...(timeZone ? { timeZone } : {}),
  });
}
