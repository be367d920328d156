import { describe, expect, it } from "vitest";
import type { JobLogPage, LogChunkView } from "@tranche/contracts";
import { lastLines, tailPage } from "../src/log-tail";

const chunk = (cursor: number, text: string): LogChunkView => ({
  cursor: String(cursor),
  at: "2026-12-07T07:00:00.000Z",
  stream: "stdout",
  node: "b200-9",
  text,
});
const text = (chunks: readonly LogChunkView[]) => chunks.map((c) => c.text).join("");

describe("tranche logs --tail", () => {
  const log = [chunk(1, "step 1\nstep 2\nstep 3\n"), chunk(2, "step 4\nstep 5\nstep 6\n"), chunk(3, "step 7\nstep 8\nstep 9\n")];

  it("keeps the last N lines, cutting the earliest chunk kept after a line break", () => {
    expect(text(lastLines(log, 1).chunks)).toBe("step 9\n");
    expect(text(lastLines(log, 3).chunks)).toBe("step 7\nstep 8\nstep 9\n");
    const four = lastLines(log, 4);
    expect([text(four.chunks), four.complete]).toEqual(["step 6\nstep 7\nstep 8\nstep 9\n", true]);
    expect(four.chunks.map((c) => c.cursor)).toEqual(["2", "3"]);
  });

  it("counts a last line without its line break, and lines split across chunks, once", () => {
    expect(text(lastLines([chunk(1, "a\nb\nste"), chunk(2, "p 3")], 2).chunks)).toBe("b\nstep 3");
    expect(text(lastLines([chunk(1, "\n\nx\n")], 2).chunks)).toBe("\nx\n");
  });

  it("says when the chunks hold fewer lines than asked", () => {
    const all = lastLines(log, 20);
    expect([text(all.chunks), all.complete]).toEqual([text(log), false]);
    expect(lastLines([], 3)).toEqual({ chunks: [], complete: false });
  });

  it("reads older pages until it has the lines, and goes on from the newest page", async () => {
    const page = (chunks: LogChunkView[], older: string | null): JobLogPage => ({
      jobId: 7,
      state: "RUNNING",
      chunks,
      next: "newest-next",
      older,
      keptBytes: 0,
      droppedBytes: 0,
      complete: false,
    });
    const asked: string[] = [];
    const pages: Record<string, JobLogPage> = {
      "&limit=1": page([log[2]!], "c3"),
      "&before=c3&limit=1": { ...page([log[1]!], "c2"), next: "older-next" },
      "&before=c2&limit=1": page([log[0]!], null),
    };
    const read = async (q: string) => (asked.push(q), pages[q]!);
    const p = await tailPage(read, 5, 1);
    expect(text(p.chunks)).toBe("step 5\nstep 6\nstep 7\nstep 8\nstep 9\n");
    expect(p.next).toBe("newest-next");
    expect(asked).toEqual(["&limit=1", "&before=c3&limit=1"]);
    expect(text((await tailPage(read, 50, 1)).chunks)).toBe(text(log));
  });
});
