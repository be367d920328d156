// Colours for budgets: stable per path, and distinct among the budgets a page shows together.

/**
 * Budget colours, each far from every other (RGB distance at least 55): the old palette's pairs such
 * as #12b76a / #16b364 were different strings but the same green on the node map. None is the light
 * grey of a free GPU.
 */
export const PALETTE = [
  "#3b5bdb",
  "#12b76a",
  "#f79009",
  "#7a5af8",
  "#ee46bc",
  "#06aed4",
  "#f04438",
  "#669f2a",
  "#854d0e",
  "#0f766e",
  "#475467",
  "#facc15",
  "#1e3a8a",
  "#9d174d",
  "#a3e635",
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
