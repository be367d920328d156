import { describe, expect, it } from "vitest";
import {
  arrayCounts,
  arrayHeldText,
  arrayReleasedText,
  arrayStatesText,
  holdArrayQuestion,
  releaseArrayQuestion,
} from "../lib/array-words";

describe("the array page's words", () => {
  it("says where the tasks stand, in a job's order, leaving out states no task is in", () => {
    expect(arrayStatesText({ COMPLETED: 70, PENDING: 17, FAILED: 7, RUNNING: 3, HELD: 0 })).toBe(
      "17 pending, 3 running, 70 completed, 7 failed",
    );
    expect(arrayStatesText({ PENDING: 1200 })).toBe("1,200 pending");
    expect(arrayCounts({ PENDING: 17, HELD: 2, RUNNING: 2, STOPPING: 1, COMPLETED: 78 })).toEqual({
      pending: 17,
      running: 3,
      active: 22,
    });
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
