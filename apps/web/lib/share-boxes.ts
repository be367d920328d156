import { parsePercentToPpm } from "@tranche/contracts";

const PPM = 1_000_000;

/**
 * The share boxes on the budgets page that do not read as a share, as one sentence (null when all do).
 * A box the editor cannot read keeps the last share it could, so without this an emptied box saved
 * that share (typed 0, then cleared: saved 0%), and "1e2" saved whatever was read before it.
 */
export function shareBoxProblem(texts: Readonly<Record<string, string>>, nameOf: (id: string) => string): string | null {
  const bad = Object.entries(texts).filter(([, t]) => {
    const ppm = parsePercentToPpm(t);
    return ppm === null || ppm > PPM;
  });
  if (bad.length === 0) return null;
  const list = bad.map(([id, t]) =>
    t.trim() === "" ? `${nameOf(id)} is empty` : `'${t.trim()}' for ${nameOf(id)} is not a share`,
  );
  return `${list.join("; ")}: type a percentage from 0 to 100 (e.g. 12.5) before saving.`;
}
