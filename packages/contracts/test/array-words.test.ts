import { describe, expect, it } from "vitest";
import { arrayRowText, jobListRows, stateWords } from "../src/format";

describe("a job array in a job list", () => {
  it("says where its tasks stand in one row, in a job's order of states", () => {
    expect(arrayRowText({ tasks: 100, states: { FAILED: 5, COMPLETED: 27, RUNNING: 20, PENDING: 48 } })).toBe(
      "array of 100: 48 pending, 20 running, 27 completed, 5 failed",
    );
    expect(arrayRowText({ tasks: 10000, states: { PENDING: 10000 } })).toBe("array of 10,000: 10,000 pending");
  });

  it("puts an array among the jobs where it was submitted, newest first", () => {
    const rows = jobListRows({ jobs: [{ id: 130 }, { id: 12 }], arrays: [{ id: 20 }] });
    expect(rows.map((r) => (r.array ? `array ${r.id}` : `job ${r.id}`))).toEqual(["job 130", "array 20", "job 12"]);
  });

  it("says a job's state in words", () => {
    expect(stateWords("PENDING")).toBe("Pending");
    expect(stateWords("CANCELLED")).toBe("Cancelled");
  });
});
