import { describe, expect, it } from "vitest";
import { until } from "../lib/words";

/**
 * until() is the countdown on the job pages ("it has 1 min 59 s to save its work"). It rounded down to
 * the minute, so a stopping session's 120 s grace read "1 min" a second after the cancel.
 */
describe("until() (lib/words.ts)", () => {
  const now = Date.parse("2026-12-07T05:00:00Z");
  const at = (s: number) => new Date(now + s * 1000).toISOString();

  it("never says less than is left under ten minutes", () => {
    expect(until(at(119.5), now)).toBe("2 min");
    expect(until(at(119), now)).toBe("1 min 59 s");
    expect(until(at(65), now)).toBe("1 min 5 s");
    expect(until(at(9 * 60 + 30), now)).toBe("9 min 30 s");
    expect(until(at(0.4), now)).toBe("1 s");
  });

  it("reads in whole units further off, and 'now' once it has passed", () => {
    expect(until(at(3600 + 65), now)).toBe("1 h 1 min");
    expect(until(at(0), now)).toBe("now");
    expect(until(at(-5), now)).toBe("now");
    expect(until(null, now)).toBe("—");
  });
});
