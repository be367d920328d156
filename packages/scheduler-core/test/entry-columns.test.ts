import { makeJob } from "@tranche/testkit";
import { describe, expect, it } from "vitest";
import type { NodeBoard } from "../src/cluster-state";
import { Reservations } from "../src/cycle/reservations";
import { EntryColumns, probeEntry } from "../src/entry-columns";
import type { FairTree } from "../src/fair-tree";
import { defaultPolicy } from "../src/index";
import { pendingEntry, type PendingEntry } from "../src/order-pending";
import type { JobLane } from "../src/types";
import { prng } from "./support/overloaded-replay";

const LANES: JobLane[] = ["DEBUG", "ALLOCATED", "UNALLOCATED"];

function entry(id: string, rnd: () => number): PendingEntry {
  const b = makeJob(id)
    .gpus(1 + Math.floor(rnd() * 8))
    .priority(Math.floor(rnd() * 3))
    .minRuntime(Math.floor(rnd() * 4) * 600);
  const job = rnd() < 0.5 ? b.maxRuntime(7200).pending() : b.pending();
  return pendingEntry(job, Math.floor(rnd() * 5), LANES[Math.floor(rnd() * 3)]!);
}

/** What a walk reads of an entry, as readInto writes it. */
const fields = (e: PendingEntry) => [e.id, e.gpus, e.budget, e.lane, e.priority, e.minRuntime, e.maxRuntime, e.capped];

describe("entry columns (entry-columns.ts)", () => {
  it("move with their entries through inserts and removes, and read back as the entry's own fields", () => {
    const rnd = prng(5);
    const list: PendingEntry[] = [];
    const cols = new EntryColumns();
    for (let step = 0; step < 400; step++) {
      if (list.length > 0 && rnd() < 0.4) {
        const at = Math.floor(rnd() * list.length);
        list.splice(at, 1);
        cols.remove(at);
      } else {
        const at = Math.floor(rnd() * (list.length + 1));
        const e = entry(`j${step}`, rnd);
        list.splice(at, 0, e);
        cols.insert(at, e);
      }
    }
    expect(list.length).toBeGreaterThan(50);
    expect(cols).toEqual(EntryColumns.of(list));
    expect(cols.notUnallocated).toBe(list.filter((e) => e.lane !== "UNALLOCATED").length);
    const probe = probeEntry();
    for (let k = 0; k < list.length; k++) expect(fields(cols.readInto(k, probe))).toEqual(fields(list[k]!));
  });

  it("stand in for the holder of a reservation: its id decides, once its GPUs and budget match", () => {
    const rnd = prng(9);
    const holder = entry("holder", rnd);
    const twin = { ...holder, id: "twin" }; // same GPUs and budget, another job
    const cols = EntryColumns.of([twin, holder]);
    const reservations = new Reservations({ count: 0 } as NodeBoard, {} as FairTree, defaultPolicy, 0);
    const r = { jobId: holder.id, gpus: holder.gpus, nodeIds: [], from: 0, holder };
    expect(reservations.holds(r, holder)).toBe(true);
    expect(reservations.holds(r, cols.readInto(1, probeEntry()))).toBe(true);
    expect(reservations.holds(r, cols.readInto(0, probeEntry()))).toBe(false);
    // A holder whose entry was copied (a debug job moved to the allocated lane) is still itself.
    expect(reservations.holds({ ...r, holder: { ...holder, lane: "ALLOCATED" } }, holder)).toBe(true);
  });
});
