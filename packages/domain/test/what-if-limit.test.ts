import { describe, expect, it } from "vitest";
import { createWhatIfLimiter, whatIfLimitsFromEnv } from "../src/budgets/what-if-limit";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe("the what-if limiter", () => {
  it("lets one person run one preview at a time, and others alongside", () => {
    const c = clock();
    const l = createWhatIfLimiter({ perMinute: 10 }, c.now);
    const first = l.begin("maya");
    expect(first.ok).toBe(true);
    const second = l.begin("maya");
    expect(second).toMatchObject({ ok: false, retryAfterSec: 2, message: expect.stringContaining("still running") });
    expect(l.begin("victor").ok).toBe(true);
    if (first.ok) first.done();
    expect(l.begin("maya").ok).toBe(true);
  });

  it("allows perMinute previews in any 60 s, then says in words when to try again", () => {
    const c = clock();
    const l = createWhatIfLimiter({ perMinute: 3 }, c.now);
    for (let i = 0; i < 3; i++) {
      const turn = l.begin("maya");
      expect(turn.ok).toBe(true);
      if (turn.ok) turn.done();
      c.advance(10_000);
    }
    // Starts at 0 s, 10 s and 20 s; now 30 s: the first leaves the window at 60 s.
    expect(l.begin("maya")).toEqual({
      ok: false,
      retryAfterSec: 30,
      message: "You have run 3 what-if previews in the last minute, the most one person may; try again in 30 s.",
    });
    c.advance(30_000);
    expect(l.begin("maya").ok).toBe(true);
  });

  it("counts no refused attempt, and with perMinute 0 caps only one at a time", () => {
    const c = clock();
    const l = createWhatIfLimiter({ perMinute: 1 }, c.now);
    const t = l.begin("maya");
    if (t.ok) t.done();
    for (let i = 0; i < 5; i++) expect(l.begin("maya").ok).toBe(false);
    c.advance(60_000);
    expect(l.begin("maya").ok).toBe(true);
    const open = createWhatIfLimiter({ perMinute: 0 }, c.now);
    for (let i = 0; i < 20; i++) {
      const turn = open.begin("maya");
      expect(turn.ok).toBe(true);
      if (turn.ok) turn.done();
    }
  });

  it("reads TRANCHE_WHAT_IF_PER_MINUTE, refusing nonsense with one line", () => {
    expect(whatIfLimitsFromEnv({})).toEqual({ perMinute: 6 });
    expect(whatIfLimitsFromEnv({ TRANCHE_WHAT_IF_PER_MINUTE: "0" })).toEqual({ perMinute: 0 });
    expect(() => whatIfLimitsFromEnv({ TRANCHE_WHAT_IF_PER_MINUTE: "-1" })).toThrow(/whole number/);
  });
});
