import { describe, expect, it } from "vitest";
import type { NodeBoard } from "../src/cluster-state";
import { CHARGED, FailedSearches, victimClass } from "../src/baselines/failed-searches";

/** A board that could fit up to `fits` GPUs with the preemptible work gone (all maySearch reads of it). */
const boardFitting = (fits: number): NodeBoard => ({ couldFit: (g: number) => g <= fits }) as unknown as NodeBoard;

describe("a baseline walk's failed victim searches (baselines/failed-searches.ts)", () => {
  it("a class searches only under its smallest failed size, and every class again once cleared", () => {
    const failed = new FailedSearches();
    const board = boardFitting(16);
    expect(failed.maySearch(8, 0, board)).toBe(true);
    failed.fail(0, 8);
    expect(failed.maySearch(8, 0, board)).toBe(false);
    expect(failed.maySearch(4, 0, board)).toBe(true);
    expect(failed.maySearch(8, 1, board)).toBe(true); // another priority
    failed.fail(CHARGED, 2);
    expect(failed.failedAt(0)).toBe(8);
    expect(failed.failedAt(CHARGED)).toBe(2);
    // Right after a lookup of the class: the cleared size must not be read back from the last lookup.
    failed.clear();
    expect(failed.failedAt(CHARGED)).toBe(Infinity);
    expect(failed.failedAt(0)).toBe(Infinity);
    expect(failed.maySearch(8, 0, board)).toBe(true);
    expect(failed.maySearch(17, 0, board)).toBe(false); // no node could fit it
  });

  it("a job that runs charged is of the charged class, below every priority", () => {
    expect(victimClass(true, 5)).toBe(CHARGED);
    expect(victimClass(false, 5)).toBe(5);
    expect(CHARGED).toBeLessThan(-1e9);
  });
});
