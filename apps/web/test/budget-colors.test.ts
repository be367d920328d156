import { describe, expect, it } from "vitest";
import { budgetColors, colorFor } from "../lib/colors";

describe("budgetColors", () => {
  it("gives the budgets shown together distinct colours, even where their hashes collide", () => {
    // Find two demo-like paths whose hash colours collide (the node map showed two budgets in one colour).
    const paths = Array.from({ length: 40 }, (_, i) => `lab/team-${i}/budget`);
    const a = paths[0]!;
    const b = paths.find((p) => p !== a && colorFor(p) === colorFor(a))!;
    expect(b).toBeDefined();
    const colors = budgetColors([a, b, "lab/vision/video"]);
    expect(new Set(colors.values()).size).toBe(3);
    expect(budgetColors([b, a]).get(a)).toBe(colors.get(a));
  });
});
