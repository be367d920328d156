import { describe, expect, it } from "vitest";
import {
  arrayCounts,
  arrayHeldText,
  arrayReleasedText,
  arrayListCutText,
  arrayStateParts,
  holdArrayQuestion,
  releaseArrayQuestion,
} from "../lib/array-words";

describe("the array page's words", () => {
  it("says where the tasks stand, in a job's order, leaving out states no task is in but the chosen one", () => {
    const text = (...a: Parameters<typeof arrayStateParts>) => arrayStateParts(...a).map((p) => p.text);
    expect(text({ COMPLETED: 70, PENDING: 17, FAILED: 7, RUNNING: 3, HELD: 0 })).toEqual([
      "17 pending",
      "3 running",
      "70 completed",
      "7 failed",
    ]);
    expect(arrayStateParts({ PENDING: 1200 })).toEqual([{ state: "PENDING", text: "1,200 pending" }]);
    // The state chosen as the filter stays, at 0, once its tasks have moved on.
    expect(text({ PENDING: 9, RUNNING: 1 }, "HELD")).toEqual(["9 pending", "0 held", "1 running"]);
    expect(arrayCounts({ PENDING: 17, HELD: 2, RUNNING: 2, STOPPING: 1, COMPLETED: 78 })).toEqual({
      pending: 17,
      running: 3,
      active: 22,
    });
  });

  it("says when the list shows only part of the tasks chosen", () => {
    expect(arrayListCutText(1000, 10000)).toBe(
      "Showing 1,000 of these 10,000 tasks, the last by index: choose a state above to see fewer at once.",
    );
    expect(arrayListCutText(100, 100)).toBeNull();
  });

  it("asks before a hold or a release, saying how many tasks it touches", () => {
    expect(holdArrayQuestion(120, 17, 3)).toBe(
      "Hold the 17 pending tasks of array #120? They will not start until released; 3 running tasks go on.",
    );
    expect(holdArrayQuestion(120, 1, 0)).toBe("Hold the 1 pending task of array #120? It will not start until released.");
    expect(releaseArrayQuestion(120, 3)).toBe("Release the 3 held tasks of array #120? They go back in the queue.");
  });

  it("says what it did in plain words", () => {
    expect(arrayHeldText({ held: 17, running: 3 })).toBe("Held 17 pending tasks; 3 were already running.");
    expect(arrayHeldText({ held: 1, running: 0 })).toBe("Held 1 pending task.");
    expect(arrayReleasedText({ released: 3, heldByOperator: 1 })).toBe(
      "Released 3 held tasks; 1 held by an operator or an admin stays held.",
    );
    expect(arrayReleasedText({ released: 2, heldByOperator: 0 })).toBe("Released 2 held tasks.");
  });
});
