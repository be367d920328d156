import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { BlockedList } from "../src/cycle/blocked-list";
import type { EntryColumns } from "../src/entry-columns";

describe("BlockedList (the R3 retry's list of blocked jobs)", () => {
  it("gives back every job added, in order, with its place, columns, entry and draft", () => {
    const queues = [{}, {}, {}] as unknown as EntryColumns[];
    // Each step: a queue, whether the entry and the draft follow the last ones (else a gap), and how
    // many jobs it adds at once (a run told one outcome, lanes.ts).
    const step = fc.record({
      queue: fc.integer({ min: 0, max: 2 }),
      nextEntry: fc.boolean(),
      nextDraft: fc.boolean(),
      count: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const list = new BlockedList();
        const added: { cols: EntryColumns; k: number; draft: number }[] = [];
        let k = 0;
        let draft = 0;
        for (const s of steps) {
          k += s.nextEntry ? 1 : 3;
          draft += s.nextDraft ? 1 : 2;
          list.add(queues[s.queue]!, k, s.count, draft);
          for (let i = 0; i < s.count; i++) added.push({ cols: queues[s.queue]!, k: k + i, draft: draft + i });
          k += s.count - 1;
          draft += s.count - 1;
        }
        const got: { cols: EntryColumns; k: number; draft: number }[] = [];
        for (let r = 0; r < list.runs; r++) {
          expect(list.firstJob[r]).toBe(got.length);
          for (let o = 0; o < list.size[r]!; o++)
            got.push({ cols: list.cols[r]!, k: list.firstAt[r]! + o, draft: list.firstDraft[r]! + o });
        }
        expect(got).toEqual(added);
        expect(list.count).toBe(added.length);
        // A run holds one queue's consecutive entries with consecutive drafts: it breaks nowhere else.
        let runs = added.length > 0 ? 1 : 0;
        for (let i = 1; i < added.length; i++) {
          const a = added[i - 1]!;
          const b = added[i]!;
          if (a.cols !== b.cols || b.k !== a.k + 1 || b.draft !== a.draft + 1) runs++;
        }
        expect(list.runs).toBe(runs);
      }),
      { numRuns: 500 },
    );
  });
});
