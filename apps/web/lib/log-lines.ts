// The logs of a job as shown: chunks in arrival order; when the job ran on several nodes, every line
// starts with the node that printed it (chunks of different nodes interleave, lines do not).

export interface LogChunk {
  id: string;
  stream: string;
  text: string;
  node: string | null;
}

export function prefixNodeLines<T extends LogChunk>(chunks: readonly T[]): (T & { shown: string })[] {
  const nodes = new Set(chunks.map((c) => c.node).filter((n): n is string => !!n));
  if (nodes.size < 2) return chunks.map((c) => ({ ...c, shown: c.text }));
  // Per node and stream: whether its next character starts a line (a chunk may end mid-line).
  const atStart = new Map<string, boolean>();
  return chunks.map((c) => {
    if (!c.node) return { ...c, shown: c.text };
    const key = `${c.node}\u0000${c.stream}`;
    let start = atStart.get(key) ?? true;
    let shown = "";
    for (const piece of c.text.split(/(?<=\n)/)) {
      shown += (start ? `[${c.node}] ` : "") + piece;
      start = piece.endsWith("\n");
    }
    atStart.set(key, start);
    return { ...c, shown };
  });
}
