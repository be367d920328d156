import { describe, expect, it } from "vitest";
import { defaultPolicy, runCycle } from "../src/index";
import { makeCluster, makeJob, reservesOf, startedIds } from "@tranche/testkit";
import { blocked } from "./support/scenes";

const HOUR = 3600;
const NOW = 100 * HOUR;

describe("R7 reservations and backfill", () => {
  it("reserves the nodes where the first blocked job can start earliest", () => {
    const r = runCycle(blocked(NOW).snapshot(), defaultPolicy, NOW);
    expect(r.reservations).toEqual([{ jobId: "big", gpus: 8, nodeIds: ["n01"], from: NOW + HOUR }]);
    expect(reservesOf(r)).toHaveLength(1);
    expect(r.pending.get("big")!.details.earliestStart).toBe(NOW + HOUR);
    expect(reservesOf(r)[0]!.sentence).toBe(
      "Reserved 1 node (n01) for job big, which can start there in 1 h; until then only jobs that will have finished or become interruptible by then start there.",
    );
  });

  it("lets a job that is done before the reservation backfill the reserved GPUs", () => {
    const r = runCycle(
      blocked(NOW).job(makeJob("short").budget("b").gpus(2).maxRuntime("30m").minRuntime("30m").submittedAt(5)).snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["short"]);
    const s = r.plan.find((o) => o.op === "START")!;
    expect(s.op === "START" && s.reason.code).toBe("BACKFILL");
    expect(s.op === "START" && s.reason.sentence).toMatch(
      /^Backfilled on nodes reserved for job big, which can start there in 1 h: this job will have finished or become interruptible by then\. /,
    );
  });

  it("lets a job that will be interruptible by then backfill, but not a job protected past it", () => {
    const r = runCycle(
      blocked(NOW)
        .job(
          makeJob("soon-free").budget("b").gpus(2).minRuntime("30m").submittedAt(5),
          makeJob("long").budget("b").gpus(2).minRuntime("3h").submittedAt(1),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(startedIds(r)).toEqual(["soon-free"]);
    expect(r.pending.get("long")!.code).toBe("RESERVED_FOR");
    expect(r.pending.get("long")!.details).toMatchObject({ reservedForJobId: "big", reservedFrom: NOW + HOUR });
    expect(r.pending.get("long")!.sentence).toContain("reserved for job big");
  });

  it("always lets unallocated work backfill, since it can be preempted at any moment", () => {
    const r = runCycle(blocked(NOW).job(makeJob("u").budget("b").gpus(4).unallocated()).snapshot(), defaultPolicy, NOW);
    expect(startedIds(r)).toEqual(["u"]);
  });

  it("makes no reservation when no release time is known", () => {
    // The blocker has no maxRuntime and b would not rank behind a by the margin: unknown.
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 50 * HOUR)
        .job(makeJob("run").budget("b").gpus(8).on("n01").startedAt(0), makeJob("big").budget("a").gpus(8))
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations).toEqual([]);
    expect(r.pending.get("big")!.details.earliestStart).toBe(null);
  });

  it("counts maxRuntime ends as known release times", () => {
    const r = runCycle(
      makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("a", 50 * HOUR)
        .job(
          makeJob("run")
            .budget("b")
            .gpus(8)
            .maxRuntime("3h")
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("big").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations[0]).toMatchObject({ jobId: "big", from: NOW + 2 * HOUR });
  });

  it("reserves whole nodes for a multi-node job at the time the last of them frees up", () => {
    const r = runCycle(
      makeCluster()
        .nodes(3)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 50 * HOUR)
        .job(
          makeJob("r1")
            .budget("b")
            .gpus(8)
            .minRuntime("2h")
            .on("n01")
            .startedAt(NOW - HOUR),
          makeJob("r2")
            .budget("b")
            .gpus(8)
            .minRuntime("3h")
            .on("n02")
            .startedAt(NOW - HOUR),
          makeJob("r3")
            .budget("b")
            .gpus(8)
            .minRuntime("8h")
            .on("n03")
            .startedAt(NOW - HOUR),
          makeJob("big").budget("a").gpus(16),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(r.reservations).toEqual([{ jobId: "big", gpus: 16, nodeIds: ["n01", "n02"], from: NOW + 2 * HOUR }]);
  });
});
