import { describe, expect, it } from "vitest";
import { KeptQueues } from "../src/kept-queues";
import { queuesOf, type PendingEntry } from "../src/order-pending";
import type { JobLane, PendingJob } from "../src/types";
import { prng } from "./support/overloaded-replay";

const LANES: JobLane[] = ["DEBUG", "ALLOCATED", "UNALLOCATED"];
const TREE = 6;

/** Counts reads of an entry's id while `on` (kept ids spare them). */
const reading = { on: false, ids: 0 };

/** An entry with these keys; its job is only an id (the queues read nothing else of it). */
function entryOf(id: string, budget: number, lane: JobLane = "ALLOCATED", priority = 0, submittedAt = 0): PendingEntry {
  const job = { id } as PendingJob;
  const entry: PendingEntry = {
    job,
    budget,
    lane,
    priority,
    submittedAt,
    id,
    gpus: 1,
    minRuntime: 0,
    maxRuntime: null,
    capped: false,
    constrained: false,
    admitted: null,
  };
  Object.defineProperty(entry, "id", {
    get: () => {
      if (reading.on) reading.ids++;
      return id;
    },
  });
  return entry;
}

describe("kept fair-tree queues", () => {
  it("equal the queues built afresh every cycle, reuse what did not change, and never change a queue handed out", () => {
    for (const seed of [1, 2, 3]) {
      const rnd = prng(seed);
      let next = 0;
      const entry = (): PendingEntry => {
        const id = `j${next++}`;
        const priority = Math.floor(rnd() * 3);
        const submittedAt = Math.floor(rnd() * 50);
        const budget = 1 + Math.floor(rnd() * (TREE - 1));
        return entryOf(id, budget, LANES[Math.floor(rnd() * 3)]!, priority, submittedAt);
      };
      let entries = Array.from({ length: 300 }, entry);
      const kept = new KeptQueues();
      let last = kept.forCycle(0, entries, TREE, null);
      for (const lane of last) for (const q of lane) kept.columnsOf(q); // read once: later cycles move them
      let reused = 0;
      let idReads = 0;
      for (let cycle = 1; cycle <= 60; cycle++) {
        const handedOut = last.map((lane) => lane.map((q) => q.slice()));
        // A few leave and a few arrive; every 20th cycle many move (a budget's lane changed): afresh.
        const moves = cycle % 20 === 0 ? 120 : Math.floor(rnd() * 6);
        const removed = entries.filter(() => rnd() < moves / entries.length);
        const gone = new Set(removed);
        const added = Array.from({ length: moves }, entry);
        entries = [...entries.filter((e) => !gone.has(e)), ...added];
        const queues = kept.forCycle(cycle, entries, TREE, { removed, added });
        expect(queues, `seed ${seed} cycle ${cycle}`).toEqual(queuesOf(entries, TREE));
        // Each queue's ids, as the closed lane reads them: an update moved them with the entries, so
        // after a cycle that updated no entry's id is read for them.
        reading.ids = 0;
        for (const lane of queues)
          for (const q of lane) {
            reading.on = true;
            const ids = kept.columnsOf(q).ids;
            reading.on = false;
            expect(ids).toEqual(q.map((e) => e.id));
          }
        if (cycle % 20 !== 0 && cycle % 20 !== 1) idReads += reading.ids;
        // Last cycle's queues are as they were handed out.
        expect(last).toEqual(handedOut);
        for (let l = 0; l < 3; l++)
          for (let b = 0; b < TREE; b++) if (queues[l]![b] === last[l]![b] && queues[l]![b]!.length > 0) reused++;
        last = queues;
      }
      // Most budgets' queues are carried over untouched: the update path ran.
      expect(reused).toBeGreaterThan(200);
      expect(idReads).toBe(0);
    }
  });

  it("builds afresh after a cycle it did not see, or when an entry to remove is not in its queue", () => {
    const mk = entryOf;
    const a = mk("a", 1);
    const b = mk("b", 1);
    const c = mk("c", 2);
    const kept = new KeptQueues();
    const first = kept.forCycle(0, [a, b], 3, null);
    // Cycle 2 follows cycle 0: the delta since cycle 1 is not what it was given.
    const skipped = kept.forCycle(2, [a, b, c], 3, { removed: [], added: [] });
    expect(skipped).toEqual(queuesOf([a, b, c], 3));
    expect(skipped[1]![1]).not.toBe(first[1]![1]);
    // An entry to remove that its queue does not hold (c's copy is another object).
    const stale = kept.forCycle(3, [a, b], 3, { removed: [mk("c", 2)], added: [] });
    expect(stale).toEqual(queuesOf([a, b], 3));
  });

  it("keeps a queue's ids with the queue, and reads them again when it is not the queue they were read from", () => {
    const mk = (id: string): PendingEntry => entryOf(id, 1);
    const kept = new KeptQueues();
    const q = [mk("a"), mk("b")];
    const ids = kept.columnsOf(q).ids;
    expect(ids).toEqual(["a", "b"]);
    // The same queue again: the same ids, not a second read.
    expect(kept.columnsOf(q).ids).toBe(ids);
    // Another queue with the same entries: its own read.
    expect(kept.columnsOf(q.slice()).ids).not.toBe(ids);
    // A queue that grew in place (PendingQueues.add on this cycle's copy) is read again.
    q.push(mk("c"));
    expect(kept.columnsOf(q).ids).toEqual(["a", "b", "c"]);
  });
});
