import { describe, expect, it } from "vitest";
import { defaultPolicy, protectionEnd, resolvePolicy, runCycle, squattingAfterReport, SQUATTING_WINDOW } from "../src/index";
import { makeCluster, makeJob, preemptedIds } from "@tranche/testkit";

const HOUR = 3600;
const NOW = 10 * HOUR;

describe("squatting: the 30-minute rule and the optional end of protection", () => {
  it("flags a job only once its GPUs have stayed under 5% busy for 30 minutes of reports, never on one idle reading", () => {
    let s = { idleSince: null as number | null, flaggedAt: null as number | null };
    s = squattingAfterReport(s, [1, 2], 1000);
    expect(s).toEqual({ idleSince: 1000, flaggedAt: null });
    for (let at = 1005; at < 1000 + SQUATTING_WINDOW; at += 300) {
      s = squattingAfterReport(s, [0, 4], at);
      expect(s.flaggedAt).toBeNull();
    }
    s = squattingAfterReport(s, [3], 1000 + SQUATTING_WINDOW);
    expect(s).toEqual({ idleSince: 1000, flaggedAt: 1000 + SQUATTING_WINDOW });
    // Still idle: the flag keeps the moment it was raised; a report without readings changes nothing.
    expect(squattingAfterReport(s, [1], 5000)).toEqual(s);
    expect(squattingAfterReport(s, [], 5000)).toEqual(s);
    // Busy again (mean over its GPUs at or above 5%): streak and flag are gone.
    expect(squattingAfterReport(s, [0, 10], 5005)).toEqual({ idleSince: null, flaggedAt: null });
  });

  it("ends a flagged job's protection after the policy's hours, never before its start, and not at all by default", () => {
    const job = { startedAt: 1000, minRuntime: 8 * HOUR, squattingSince: 3000 };
    expect(protectionEnd(job, true, defaultPolicy)).toBe(1000 + 8 * HOUR);
    expect(protectionEnd(job, true, resolvePolicy({ squattingUnprotectAfter: 2 * HOUR }))).toBe(3000 + 2 * HOUR);
    expect(protectionEnd({ ...job, squattingSince: null }, true, resolvePolicy({ squattingUnprotectAfter: HOUR }))).toBe(
      1000 + 8 * HOUR,
    );
    // The contract's own end comes first when it is earlier.
    expect(protectionEnd({ ...job, minRuntime: HOUR }, true, resolvePolicy({ squattingUnprotectAfter: 2 * HOUR }))).toBe(
      1000 + HOUR,
    );
    expect(protectionEnd(job, false, resolvePolicy({ squattingUnprotectAfter: HOUR }))).toBe(1000);
  });

  it("a protected job flagged as squatting for longer than the policy allows becomes interruptible; unflagged or with the policy off it stays protected", () => {
    const build = (flagged: number | null) => {
      const snap = makeCluster()
        .nodes(1)
        .budget("a", 0.5)
        .budget("b", 0.5)
        .usage("b", 200 * HOUR)
        .job(
          makeJob("b-idle")
            .budget("b")
            .gpus(8)
            .minRuntime("8h")
            .on("n01")
            .startedAt(NOW - 4 * HOUR),
          makeJob("a-work")
            .budget("a")
            .gpus(8)
            .submittedAt(NOW - 60),
        )
        .snapshot();
      snap.running.find((j) => j.id === "b-idle")!.squattingSince = flagged;
      return snap;
    };
    const policy = resolvePolicy({ squattingUnprotectAfter: 2 * HOUR });
    expect(preemptedIds(runCycle(build(NOW - 3 * HOUR), policy, NOW))).toEqual(["b-idle"]);
    expect(preemptedIds(runCycle(build(NOW - HOUR), policy, NOW))).toEqual([]);
    expect(preemptedIds(runCycle(build(null), policy, NOW))).toEqual([]);
    expect(preemptedIds(runCycle(build(NOW - 3 * HOUR), defaultPolicy, NOW))).toEqual([]);
  });
});
