import { describe, expect, it } from "vitest";
import { expectedStartWords } from "../src/format";

const NOW = Date.parse("2026-12-02T10:00:00Z");
const at = (s: number): string => new Date(NOW + s * 1000).toISOString();

describe("expectedStartWords", () => {
  it("says about how long at most, that running jobs ending early bring it sooner, and after which jobs", () => {
    // Measured live: every one of 39 forecast jobs started sooner than forecast (the forecast counts
    // each running job as using all its time), so "in about" misled; the words say which way it errs.
    expect(
      expectedStartWords({ estimatedStartAt: at(40 * 60), estimatedStartWhy: null, estimatedStartAfter: [81, 94] }, NOW),
    ).toBe("expected to start within about 40 min (sooner if running jobs end early), after #81 and #94");
    expect(
      expectedStartWords({ estimatedStartAt: at(5 * 3600 + 1234), estimatedStartWhy: null, estimatedStartAfter: [7] }, NOW),
    ).toBe("expected to start within about 5 h 20 min (sooner if running jobs end early), after #7");
    expect(
      expectedStartWords({ estimatedStartAt: at(600), estimatedStartWhy: null, estimatedStartAfter: [1, 2, 3, 4, 5] }, NOW),
    ).toBe("expected to start within about 10 min (sooner if running jobs end early), after #1, #2, #3 and 2 more");
  });

  it("says where a known start that is not the forecast's comes from (the cycle's reservation)", () => {
    const reserved = { estimatedStartAt: at(6 * 60), estimatedStartWhy: "when the GPUs reserved for it free up" };
    expect(expectedStartWords({ ...reserved, estimatedStartAfter: [] }, NOW)).toBe(
      "expected to start within about 6 min (sooner if running jobs end early), when the GPUs reserved for it free up",
    );
    expect(expectedStartWords(reserved, NOW, { short: true })).toBe("~6 min");
  });

  it("says now, unknown with why, and no forecast yet, never a bare lower bound", () => {
    expect(expectedStartWords({ estimatedStartAt: at(10), estimatedStartWhy: null }, NOW)).toBe("expected to start now");
    expect(expectedStartWords({ estimatedStartAt: null, estimatedStartWhy: "it is held" }, NOW)).toBe(
      "start time unknown: it is held",
    );
    expect(expectedStartWords({ estimatedStartAt: null, estimatedStartWhy: null }, NOW)).toBe("no start forecast yet");
    expect(expectedStartWords({ estimatedStartAt: at(3000), estimatedStartWhy: null }, NOW, { short: true })).toBe("~50 min");
  });

  it("says in a table's cell what an unknown start means, never a bare dash or 'unknown'", () => {
    const cell = (why: string | null) =>
      expectedStartWords({ estimatedStartAt: null, estimatedStartWhy: why }, NOW, { short: true });
    expect(cell(null)).toBe("no estimate yet");
    expect(cell("it is held")).toBe("not while held");
    expect(cell("it can never fit this cluster")).toBe("never, as it stands");
    expect(cell("its node lists leave it no node in service to run on")).toBe("never, as it stands");
    expect(cell("it does not start within the next 7 d that the forecast looks ahead")).toBe("not within the forecast");
    expect(cell("it is too far back in the queue to forecast")).toBe("too far back to tell");
    expect(cell("a job it was expected to follow has ended since the forecast was made")).toBe("not known yet");
  });
});
