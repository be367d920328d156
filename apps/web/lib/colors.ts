// Colours for budgets: stable per path, and distinct among the budgets a page shows together.

/** Stable colour per budget path (nodes grid, allocation strips). */
const PALETTE = [
  "#3b5bdb",
  "#12b76a",
  "#f79009",
  "#7a5af8",
  "#ee46bc",
  "#06aed4",
  "#f04438",
  "#669f2a",
  "#875bf7",
  "#dd2590",
  "#0086c9",
  "#e04f16",
  "#16b364",
  "#6172f3",
  "#ca8504",
];
/**
 * Distinct colours for the budgets shown together (the node map): in path order, one palette colour
 * each while they last, so two budgets on one page never share a colour the way hashes can.
 */
export function budgetColors(paths: Iterable<string>): Map<string, string> {
  const sorted = [...new Set(paths)].sort();
  return new Map(sorted.map((p, i) => [p, i < PALETTE.length ? PALETTE[i]! : colorFor(p)]));
}

export function colorFor(key: string): string {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return PALETTE[h % PALETTE.length]!;
}
