// A job's log as people read it (the job page, `tranche logs`): chunks in arrival order; when the job's
// output comes from several nodes, every line starts with the node that printed it ("[h100-29] step 1").
// Chunks of different nodes interleave, lines do not.

export interface LogChunkText {
  stream: string;
  text: string;
  /** The node that sent it (null for chunks stored before nodes were recorded: never labelled). */
  node: string | null;
}

/**
 * Labels a log's lines with their node chunk after chunk, for a log read page by page or followed. It
 * remembers, per node and stream, whether the next character starts a line (a chunk may end mid-line),
 * also for chunks it passes unlabelled (`label` false), so labelling may begin part way through a log.
 */
export function nodeLineLabeller(): (chunk: LogChunkText, label: boolean) => string {
  const atStart = new Map<string, boolean>();
  return (c, label) => {
    if (!c.node || c.text === "") return c.text;
    const key = `${c.node}\u0000${c.stream}`;
    if (!label) {
      atStart.set(key, c.text.endsWith("\n"));
      return c.text;
    }
    let start = atStart.get(key) ?? true;
    let shown = "";
    for (const piece of c.text.split(/(?<=\n)/)) {
      shown += (start ? `[${c.node}] ` : "") + piece;
      start = piece.endsWith("\n");
    }
    atStart.set(key, start);
    return shown;
  };
}

/** A page of chunks as shown: labelled with their nodes when they come from several (the job page). */
export function prefixNodeLines<T extends LogChunkText>(chunks: readonly T[]): (T & { shown: string })[] {
  const label = new Set(chunks.map((c) => c.node).filter((n): n is string => !!n)).size > 1;
  const labelled = nodeLineLabeller();
  return chunks.map((c) => ({ ...c, shown: labelled(c, label) }));
}
