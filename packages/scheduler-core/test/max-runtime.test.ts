import { describe, expect, it } from "vitest";
import { defaultPolicy, runCycle } from "../src/index";
import { killsOf, makeCluster, makeJob, preemptionsOf, startsOf } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

describe("maxRuntime", () => {
  it("kills a job that reached its maxRuntime, asking it to stop with its grace, and never requeues it", () => {
    const r = runCycle(
      makeCluster()
        .node("n01")
        .budget("a", 1)
        .job(
          makeJob("over")
            .budget("a")
            .gpus(2)
            .maxRuntime("1h")
            .on("n01", [0, 1])
            .startedAt(NOW - HOUR),
          makeJob("within")
            .budget("a")
            .gpus(2)
            .maxRuntime("1h")
            .on("n01", [2, 3])
            .startedAt(NOW - HOUR + 1),
          makeJob("unbounded")
            .budget("a")
            .gpus(2)
            .on("n01", [4, 5])
            .startedAt(NOW - 100 * HOUR),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(killsOf(r)).toEqual([
      {
        op: "KILL",
        jobId: "over",
        budgetId: "a",
        gpus: 2,
        gracePeriod: defaultPolicy.gracePeriod,
        graceUntil: NOW + defaultPolicy.gracePeriod,
        sentence: `Stopped at its maximum runtime of 1 h: asked to stop now, stopped by force after 2 min if still running; not requeued.`,
      },
    ]);
    expect(r.stats.killed).toBe(1);
    expect(preemptionsOf(r)).toEqual([]);
  });

  it("hands a killed job's GPUs to a pending job that starts once it exits", () => {
    const r = runCycle(
      makeCluster()
        .node("n01")
        .budget("a", 1)
        .job(
          makeJob("over")
            .budget("a")
            .gpus(8)
            .maxRuntime("1h")
            .on("n01")
            .startedAt(NOW - 2 * HOUR),
          makeJob("next").budget("a").gpus(8),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(killsOf(r).map((k) => k.jobId)).toEqual(["over"]);
    expect(startsOf(r)).toMatchObject([{ jobId: "next", afterExitOf: ["over"], startBy: NOW + defaultPolicy.gracePeriod }]);
  });

  it("does not kill a job that is already leaving", () => {
    const r = runCycle(
      makeCluster()
        .node("n01")
        .budget("a", 1)
        .job(
          makeJob("leaving")
            .budget("a")
            .gpus(8)
            .maxRuntime("1h")
            .on("n01")
            .startedAt(NOW - 2 * HOUR)
            .stopping(NOW + 30),
        )
        .snapshot(),
      defaultPolicy,
      NOW,
    );
    expect(killsOf(r)).toEqual([]);
  });
});
