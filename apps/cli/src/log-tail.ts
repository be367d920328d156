// `tranche logs --tail N`: the last N lines, as `tail -n N` prints them. The log is stored in chunks (what
// a node uploaded at one heartbeat, often many lines): --tail 3 printed the last three chunks, nine lines
// of a training loop.
import type { JobLogPage, LogChunkView } from "@tranche/contracts";

/**
 * The last `n` lines of `chunks` (the log's stream, in order): the earliest chunk kept is cut after the
 * line break that begins them; `complete` is false when the chunks hold fewer lines, so older ones are
 * needed. The stream's final line break ends its last line and does not begin another.
 */
export function lastLines(chunks: readonly LogChunkView[], n: number): { chunks: LogChunkView[]; complete: boolean } {
  let breaks = 0;
  const kept: LogChunkView[] = [];
  for (let i = chunks.length - 1; i >= 0; i--) {
    const c = chunks[i]!;
    let from = c.text.length - (i === chunks.length - 1 && c.text.endsWith("\n") ? 1 : 0);
    while (from > 0) {
      const k = c.text.lastIndexOf("\n", from - 1);
      if (k < 0) break;
      if (++breaks === n) {
        const rest = c.text.slice(k + 1);
        if (rest) kept.unshift({ ...c, text: rest });
        return { chunks: kept, complete: true };
      }
      from = k;
    }
    kept.unshift(c);
  }
  return { chunks: kept, complete: false };
}

/**
 * The page a `--tail n` reading starts from: the newest page (its `next` is where following goes on),
 * holding the last n lines, read back page by page (`older`) until they are there or the kept log begins.
 */
export async function tailPage(read: (query: string) => Promise<JobLogPage>, n: number, pageChunks: number): Promise<JobLogPage> {
  const newest = await read(`&limit=${pageChunks}`);
  let chunks = newest.chunks;
  let older = newest.older;
  for (;;) {
    const tail = lastLines(chunks, n);
    if (tail.complete || older === null) return { ...newest, chunks: tail.chunks };
    const page = await read(`&before=${older}&limit=${pageChunks}`);
    if (page.chunks.length === 0) return { ...newest, chunks: tail.chunks };
    chunks = [...page.chunks, ...chunks];
    older = page.older;
  }
}
