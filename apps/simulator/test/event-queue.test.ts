import { describe, expect, it } from "vitest";
import { EventQueue } from "../src/event-queue";

/** A small deterministic generator (the test must not depend on Math.random). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

describe("EventQueue", () => {
  it("pops by time, equal times in the order they were pushed, with pushes between pops", () => {
    for (const seed of [1, 2, 3]) {
      const rand = lcg(seed);
      const q = new EventQueue<number>();
      // The reference: every pushed (time, order of push), the earliest taken out on each pop.
      const ref: { t: number; n: number }[] = [];
      const popped: number[] = [];
      const expected: number[] = [];
      let n = 0;
      let now = 0;
      for (let step = 0; step < 5_000; step++) {
        if (rand() < 0.55 || ref.length === 0) {
          // Few distinct times, so that ties are common; never earlier than the last pop.
          const t = now + Math.floor(rand() * 8);
          q.push(t, n);
          ref.push({ t, n });
          n++;
        } else {
          let best = 0;
          for (let i = 1; i < ref.length; i++)
            if (ref[i]!.t < ref[best]!.t || (ref[i]!.t === ref[best]!.t && ref[i]!.n < ref[best]!.n)) best = i;
          expected.push(ref[best]!.n);
          expect(q.peekTime()).toBe(ref[best]!.t);
          ref.splice(best, 1);
          const e = q.pop()!;
          now = e.t;
          popped.push(e.item);
        }
        expect(q.size).toBe(ref.length);
      }
      expect(popped).toEqual(expected);
    }
    expect(new EventQueue<number>().pop()).toBeUndefined();
    expect(new EventQueue<number>().peekTime()).toBe(Infinity);
  });
});
