import { describe, expect, it } from "vitest";
import { runtimeOrderProblem } from "../src";

/**
 * The Submit form's preview showed "protected until +1 h … killed at +10 min" for min 1 h, max 10 min,
 * which the server refuses; the form now says so in these words and disables Submit.
 */
describe("runtimeOrderProblem", () => {
  it("says when the maximum runtime is shorter than the minimum", () => {
    expect(runtimeOrderProblem(3600, 600)).toBe("The maximum runtime (10 min) is shorter than the minimum (1 h)");
    expect(runtimeOrderProblem(5400, 5399)).toBe(
      "The maximum runtime (1 h 29 min 59 s) is shorter than the minimum (1 h 30 min)",
    );
  });

  it("is null with no maximum, or one at least the minimum", () => {
    expect(runtimeOrderProblem(3600, null)).toBeNull();
    expect(runtimeOrderProblem(3600, 3600)).toBeNull();
    expect(runtimeOrderProblem(0, 600)).toBeNull();
  });
});
