import { describe, expect, it } from "vitest";
import { lateExitOutcome } from "../src/index";

const exit = (over: Partial<Parameters<typeof lateExitOutcome>[0]> = {}) => ({
  exitCode: 0,
  stoppedByPlatform: false,
  endedAt: 100,
  fenceAt: 105,
  ...over,
});

describe("R9: an exit reported for a run already declared lost", () => {
  it("completes a job that finished (exit code 0) before its fence and was not started again", () => {
    expect(lateExitOutcome(exit(), { state: "LOST", startedAgain: false })).toBe("complete");
    expect(lateExitOutcome(exit(), { state: "PENDING", startedAgain: false })).toBe("complete");
    expect(lateExitOutcome(exit(), { state: "HELD", startedAgain: false })).toBe("complete");
  });

  it("keeps the new run of a job started again, and says so", () => {
    expect(lateExitOutcome(exit(), { state: "RUNNING", startedAgain: true })).toBe("started-again");
  });

  it("keeps the loss for an exit at or after the fence, a platform stop, a failure or an unknown fence", () => {
    const job = { state: "LOST", startedAgain: false };
    expect(lateExitOutcome(exit({ endedAt: 105 }), job)).toBe("lost");
    expect(lateExitOutcome(exit({ stoppedByPlatform: true }), job)).toBe("lost");
    expect(lateExitOutcome(exit({ exitCode: 1 }), job)).toBe("lost");
    expect(lateExitOutcome(exit({ exitCode: null }), job)).toBe("lost");
    expect(lateExitOutcome(exit({ fenceAt: null }), job)).toBe("lost");
  });

  it("leaves a job that ended otherwise since (cancelled while requeued) as it is", () => {
    expect(lateExitOutcome(exit(), { state: "CANCELLED", startedAgain: false })).toBe("lost");
  });
});
