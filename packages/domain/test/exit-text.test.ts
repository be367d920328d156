import { describe, expect, it } from "vitest";
import { decideRunOutcome, exitText } from "../src/runtime/job-lifecycle";

describe("how a run ended, in words", () => {
  it("names exits and signals a person knows, and words the agent's own markers", () => {
    expect(exitText(0, null)).toBe("exit code 0");
    expect(exitText(null, "SIGKILL")).toBe("signal SIGKILL");
    expect(exitText(null, "NEVER_STARTED")).toBe("stopped before it launched");
    expect(exitText(null, "UNKNOWN")).toBe("its agent lost track of the process");
  });

  it("a preempted run stopped before it launched says so, not 'signal NEVER_STARTED'", () => {
    const out = decideRunOutcome(
      { jobState: "STOPPING", intent: "PREEMPT", resumable: true, requeuePolicy: "NEVER" },
      { cause: "exit", exitCode: null, signal: "NEVER_STARTED" },
    );
    expect(out.sentence).not.toContain("NEVER_STARTED");
    expect(out.sentence).toContain("stopped before it launched");
  });
});
