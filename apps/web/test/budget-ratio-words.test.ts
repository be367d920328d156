import { describe, expect, it } from "vitest";
import { shareUsedCell } from "@tranche/contracts/format";
import { ratioText } from "../lib/words";

describe("the Budgets page's ratio and what-if cells", () => {
  it("say the share used in the CLI's words, not a bare ratio", () => {
    expect(ratioText(0.27)).toBe("27% of its share");
    expect(ratioText(1.43)).toBe("1.4 times its share");
    expect(ratioText(null)).toBe("no share here");
    expect(ratioText(undefined)).toBe("—");
    // One function for both: `tranche share --what-if` prints the same cells.
    for (const r of [0, 0.27, 1, 3.05, null]) expect(ratioText(r)).toBe(shareUsedCell(r));
  });
});
