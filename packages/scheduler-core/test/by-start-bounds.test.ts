import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Reservations, type ActiveReservation } from "../src/cycle/reservations";
import type { NodeBoard } from "../src/cluster-state";
import type { FairTree } from "../src/fair-tree";
import { defaultPolicy } from "../src/index";
import type { PendingEntry } from "../src/order-pending";

const NOW = 10_000;

// Runtimes and starts from a few values, so that sums fall on, before and after the starts.
const runtime = fc.constantFrom(0, 600, 900, 1800, 3600, 7200, 9000);
const maxRuntime = fc.option(runtime, { nil: null });

/**
 * Reservations.sameByStart stands in for asking byStart of every reservation in BlockedMemo.kindRunEnd:
 * runtimes it finds alike must get the very answers the first ones get from each reservation (else
 * a job would join a run of another kind), and the first ones' runtimes are alike with themselves.
 */
describe("Reservations.byStartBounds and sameByStart", () => {
  it("finds runtimes alike only when byStart answers them alike for every reservation", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 600, 900, 3600, 7200, 9000, Infinity), { maxLength: 5 }),
        runtime,
        maxRuntime,
        runtime,
        maxRuntime,
        (starts, minK, maxK, minJ, maxJ) => {
          const reservations = new Reservations(
            { count: 0, size: 8 } as unknown as NodeBoard,
            {} as FairTree,
            defaultPolicy,
            NOW,
          );
          for (const from of starts)
            reservations.list.push({
              jobId: "h",
              nodeIds: [],
              gpus: 1,
              from: NOW + from,
              holder: {} as PendingEntry,
            } as ActiveReservation);
          const bounds: number[] = [];
          reservations.byStartBounds(minK, maxK, bounds);
          expect(reservations.sameByStart(bounds, minK, maxK ?? -1)).toBe(true);
          if (!reservations.sameByStart(bounds, minJ, maxJ ?? -1)) return;
          for (const r of reservations.list)
            expect(reservations.byStart(r, minJ, maxJ), `start ${r.from - NOW}`).toBe(reservations.byStart(r, minK, maxK));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
