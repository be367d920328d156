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

export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "-";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  return `${Math.floor(s / 86_400)}d`;
}
