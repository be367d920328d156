import { describe, expect, it } from "vitest";
import { shareBoxProblem } from "../lib/share-boxes";

const names: Record<string, string> = { a: "safety", b: "evaluation" };
const nameOf = (id: string) => names[id] ?? id;

describe("the budgets page's share boxes", () => {
  it("read as shares: nothing to say", () => {
    expect(shareBoxProblem({ a: "15", b: "12.5%" }, nameOf)).toBeNull();
    expect(shareBoxProblem({}, nameOf)).toBeNull();
  });
  it("an emptied box, a number the editor cannot read, a negative one or one over 100% are named, so nothing is saved", () => {
    expect(shareBoxProblem({ a: "" }, nameOf)).toBe(
      "safety is empty: type a percentage from 0 to 100 (e.g. 12.5) before saving.",
    );
    expect(shareBoxProblem({ a: "1e2", b: "-5" }, nameOf)).toBe(
      "'1e2' for safety is not a share; '-5' for evaluation is not a share: type a percentage from 0 to 100 (e.g. 12.5) before saving.",
    );
    expect(shareBoxProblem({ b: "150" }, nameOf)).toMatch(/^'150' for evaluation is not a share/);
  });
});
