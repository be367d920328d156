import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OrderList } from "../src/cycle/order-list";
import type { PendingEntry } from "../src/order-pending";

/** A queue of entries whose ids are all the list reads of them. */
const queueOf = (name: string, n: number): PendingEntry[] =>
  Array.from({ length: n }, (_, k) => ({ id: `${name}${k}` }) as PendingEntry);

describe("OrderList (a cycle's order, written when first read)", () => {
  it("gives back every id in the order pushed, one by one, copied or as runs of a queue's entries", () => {
    const queues = [queueOf("a", 6), queueOf("b", 6)];
    const ids = queueOf("c", 6).map((e) => e.id);
    const step = fc.oneof(
      fc.record({ kind: fc.constant("push" as const), k: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant("ids" as const), from: fc.integer({ min: 0, max: 6 }), to: fc.integer({ min: 0, max: 6 }) }),
      fc.record({
        kind: fc.constant("entries" as const),
        q: fc.integer({ min: 0, max: 1 }),
        from: fc.integer({ min: 0, max: 5 }),
        count: fc.integer({ min: 0, max: 6 }),
      }),
      fc.record({ kind: fc.constant("pop" as const) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const list = new OrderList();
        const expected: string[] = [];
        let lastAlone = false; // pop takes back only an id pushed alone, right after it
        for (const s of steps) {
          if (s.kind === "push") {
            list.push(`p${s.k}`);
            expected.push(`p${s.k}`);
            lastAlone = true;
            continue;
          }
          if (s.kind === "pop") {
            if (!lastAlone) continue;
            list.pop();
            expected.pop();
            lastAlone = false;
            continue;
          }
          if (s.kind === "ids") {
            list.pushIds(ids, s.from, s.to);
            for (let k = s.from; k < s.to; k++) expected.push(ids[k]!);
          } else {
            const count = Math.min(s.count, 6 - s.from);
            list.pushEntries(queues[s.q]!, s.from, count);
            for (let k = s.from; k < s.from + count; k++) expected.push(queues[s.q]![k]!.id);
          }
          lastAlone = false;
          expect(list.length).toBe(expected.length);
        }
        expect(list.length).toBe(expected.length);
        expect(list.toArray()).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("copies pushed ids at once: a later change to their array moves none of them", () => {
    const ids = ["x0", "x1", "x2", "x3"];
    const list = new OrderList();
    list.push("p");
    list.pushIds(ids, 1, 3);
    ids.splice(0, 2, "y0");
    ids[1] = "y1";
    expect(list.toArray()).toEqual(["p", "x1", "x2"]);
  });
});
