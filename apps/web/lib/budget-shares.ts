const PPM = 1_000_000;

/** Room kept free on each side of a strip segment's label: the boundary handles cover the segment's edges. */
export const SEGMENT_PAD_PX = 6;

/**
 * What a segment of the allocation strip writes inside it: "multilingual 10%" where that fits, else
 * the share alone ("8.5%"), else nothing; never a cut-off fragment ("ultilingual 8."). A segment
 * without its name still gives it in its tooltip and in the share boxes under the strip, whose
 * swatches are the strip's legend. `textWidth` measures a text in the segment's font, in pixels.
 */
export function segmentLabel(
  name: string,
  share: string,
  segmentPx: number,
  textWidth: (text: string) => number,
  pad = SEGMENT_PAD_PX,
): string {
  for (const label of [`${name} ${share}`, share]) if (textWidth(label) + 2 * pad <= segmentPx) return label;
  return "";
}

/**
 * Each node's share of the whole cluster: the product of the shares (ppm of its parent) down its path;
 * the root holds all of it. `nodes` lists every parent before its children (the tree's order).
 */
export function ofCluster(
  nodes: readonly { id: string; parentId: string | null }[],
  ppmOf: (id: string) => number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const n of nodes) out.set(n.id, n.parentId ? (out.get(n.parentId) ?? 0) * (ppmOf(n.id) / PPM) : 1);
  return out;
}
