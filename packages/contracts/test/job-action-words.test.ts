import { describe, expect, it } from "vitest";
import { jobActionDoneText, jobActionQuestion, jobActionRefusedText } from "../src/format";

describe("a bulk action in words", () => {
  it("asks how many jobs it touches", () => {
    expect(jobActionQuestion("cancel", 27)).toBe("Cancel 27 jobs?");
    expect(jobActionQuestion("release", 1)).toBe("Release 1 job?");
  });

  it("names the jobs done, the first twenty and a count of the rest", () => {
    expect(jobActionDoneText({ action: "hold", done: [41], refused: [] })).toBe(
      "Held 1 job: #41; the scheduler skips it until it is released.",
    );
    expect(jobActionDoneText({ action: "cancel", done: [], refused: [{ id: 4, reason: "x" }] })).toBe("No job was cancelled.");
    const many = jobActionDoneText({ action: "release", done: Array.from({ length: 25 }, (_, i) => i + 1), refused: [] });
    expect(many).toMatch(/^Released 25 jobs: #1, #2, .*, #20 and 5 more; back in the queue/);
  });

  it("lists each refused job with its reason, and nothing when none was refused", () => {
    expect(jobActionRefusedText({ action: "cancel", done: [1], refused: [] })).toBeNull();
    expect(
      jobActionRefusedText({
        action: "cancel",
        done: [],
        refused: [
          { id: 44, reason: "You have no job 44" },
          { id: 45, reason: "Job 45 has already finished (cancelled)" },
        ],
      }),
    ).toBe("2 jobs not cancelled:\n  #44: You have no job 44\n  #45: Job 45 has already finished (cancelled)");
  });
});
