import { describe, expect, it } from "vitest";
import { defaultPolicy, forecastStarts, runCycle, type ClusterSnapshot } from "../src/index";
import { makeCluster, makeJob } from "@tranche/testkit";

const NOW = 100_000;
const HOUR = 3600;

/**
 * n01 is held 6 h, n02 20 min, n03 and n04 (with `wide`) 2 h and 6 h; q, ahead in order, takes the
 * one reservation a cycle, so p's figure is the estimate, not a reservation of its own.
 */
function busy(p: ReturnType<typeof makeJob>, wide = false): ClusterSnapshot {
  const held = (id: string, node: string, secs: number) =>
    makeJob(id).budget("a").gpus(8).minRuntime(secs).maxRuntime(secs).startedAt(NOW).on(node).running();
  return makeCluster()
    .budget("a", 0.5)
    .budget("b", 0.5)
    .nodes(wide ? 4 : 2)
    .job(
      held("r1", "n01", 6 * HOUR),
      held("r2", "n02", HOUR / 3),
      ...(wide ? [held("r3", "n03", 2 * HOUR), held("r4", "n04", 6 * HOUR)] : []),
      makeJob("q")
        .budget("b")
        .gpus(8)
        .minRuntime(HOUR)
        .maxRuntime(HOUR)
        .submittedAt(NOW - 1000)
        .pending(),
      p
        .budget("b")
        .minRuntime(HOUR)
        .maxRuntime(HOUR)
        .submittedAt(NOW - 500)
        .pending(),
    )
    .snapshot();
}

describe("a job's node lists in its start figures", () => {
  it("the earliest start in its reason counts only the nodes it may use", () => {
    const r = runCycle(busy(makeJob("p").gpus(8).onlyNodes("n01")), defaultPolicy, NOW);
    const reason = r.pending.get("p")!;
    expect(reason.details.reservedForJobId).toBeUndefined();
    expect(reason.details.earliestStart).toBe(NOW + 6 * HOUR);
    expect(reason.sentence).toContain("cannot start for at least 6 h");
  });

  it("so does a job that excludes the node that frees first", () => {
    const r = runCycle(busy(makeJob("p").gpus(8).excludeNodes("n02")), defaultPolicy, NOW);
    expect(r.pending.get("p")!.details.earliestStart).toBe(NOW + 6 * HOUR);
  });

  it("and a job of whole nodes, on the nodes it may use", () => {
    // Anywhere, 16 GPUs free at 2 h (n02 and n03); on n01, n03 and n04 only at 6 h.
    const r = runCycle(busy(makeJob("p").gpus(16).excludeNodes("n02"), true), defaultPolicy, NOW);
    expect(r.pending.get("p")!.details.earliestStart).toBe(NOW + 6 * HOUR);
  });

  it("a job without lists keeps the estimate over every node", () => {
    const r = runCycle(busy(makeJob("p").gpus(8)), defaultPolicy, NOW);
    expect(r.pending.get("p")!.details.earliestStart).toBe(NOW + HOUR / 3);
  });

  it("the start forecast waits for the node it names, not the one that frees first", () => {
    const { starts } = forecastStarts(busy(makeJob("p").gpus(8).onlyNodes("n01")), defaultPolicy, NOW, {
      minStep: 0,
      stepFraction: 0,
    });
    const p = starts.find((s) => s.jobId === "p")!;
    expect(p.at).toBe(NOW + 6 * HOUR + defaultPolicy.gracePeriod);
    expect(p.after).toEqual(["r1"]);
  });
});
