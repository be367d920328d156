/** A job's node lists in plain words (job page, `tranche explain`), or null when it may run on any node. */
export function nodeListWords(nodes: readonly string[], excludeNodes: readonly string[]): string | null {
  const only = nodes.length > 0 ? `Runs only on ${orWords(nodes)}` : null;
  const never = excludeNodes.length > 0 ? `${only ? "never" : "Never runs"} on ${orWords(excludeNodes)}` : null;
  if (!only && !never) return null;
  return `${[only, never].filter(Boolean).join(", ")}.`;
}

function orWords(xs: readonly string[]): string {
  return xs.length === 1 ? xs[0]! : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`;
}
