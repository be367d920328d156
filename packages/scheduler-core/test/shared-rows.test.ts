import { makeCluster, makeJob } from "@tranche/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultPolicy } from "../src/index";
import { ReasonDrafts } from "../src/cycle/reason-drafts";
import { FAIRSHARE } from "../src/cycle/rule-set";
import { runCycleWith } from "../src/run-cycle";
import type { ClusterSnapshot, CycleResult } from "../src/types";
import { WorkingMemory } from "../src/working-memory";

const NOW = 100 * 3600;

function cycle(snap: ClusterSnapshot, share: boolean): CycleResult {
  const memory = new WorkingMemory();
  memory.shareBlockedOutcomes = share;
  memory.rememberFailedReservations = share;
  return runCycleWith(memory, JSON.parse(JSON.stringify(snap)) as ClusterSnapshot, defaultPolicy, NOW, FAIRSHARE);
}

/**
 * Two full nodes of b's protected work, and a's allocated queue of 40 jobs whose GPUs alternate 1, 2,
 * 1, 2...: after the first blocked jobs, each kind's outcome is shared, and every run of one kind is
 * one job long.
 */
function alternating(): ClusterSnapshot {
  const jobs = [
    makeJob("p")
      .budget("b")
      .gpus(8)
      .minRuntime("4h")
      .on("n01")
      .startedAt(NOW - 600),
    makeJob("q")
      .budget("b")
      .gpus(8)
      .minRuntime("4h")
      .on("n02")
      .startedAt(NOW - 600),
  ];
  for (let i = 0; i < 40; i++)
    jobs.push(
      makeJob(`a${String(i).padStart(2, "0")}`)
        .budget("a")
        .gpus(1 + (i % 2))
        .minRuntime("1h")
        .maxRuntime("2h")
        .submittedAt(100 + i),
    );
  return makeCluster()
    .nodes(2)
    .budget("a", 0.5)
    .budget("b", 0.5)
    .job(...jobs)
    .snapshot();
}

afterEach(() => vi.restoreAllMocks());

describe("runs of shared outcomes told alike (lanes.ts takeSharedRun)", () => {
  it("gives alternating kinds with the same reason one reason row, and the same result as trying each job", () => {
    const rows = vi.spyOn(ReasonDrafts.prototype, "pushRun");
    const shared = cycle(alternating(), true);
    // Without joining the runs, every job after the first few is a row of its own (one call each).
    expect(rows.mock.calls.length).toBeLessThanOrEqual(3);
    const told = rows.mock.calls.reduce((n, call) => n + call[2], 0);
    expect(told).toBeGreaterThan(30);
    rows.mockRestore();
    expect(JSON.stringify(shared)).toBe(JSON.stringify(cycle(alternating(), false)));
    // Blocked by the protection of b's work (R4), the first one holding a reservation.
    expect([...shared.pending.values()].map((r) => r.code)).toEqual(new Array(40).fill("CONTRACTS"));
    expect(shared.reservations.map((r) => r.jobId)).toEqual(["a00"]);
  });
});
