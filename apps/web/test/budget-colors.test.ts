import { describe, expect, it } from "vitest";
import { PALETTE, budgetColors, colorFor } from "../lib/colors";

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

describe("the budget palette", () => {
  it("has no two colours a person would take for one (RGB distance at least 55)", () => {
    const rgb = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
    let closest = Infinity;
    for (let i = 0; i < PALETTE.length; i++)
      for (let j = i + 1; j < PALETTE.length; j++) {
        const [a, b] = [rgb(PALETTE[i]!), rgb(PALETTE[j]!)];
        closest = Math.min(closest, Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!));
      }
    expect(closest).toBeGreaterThanOrEqual(55);
  });
});
