import { describe, expect, it } from "vitest";
import { extendProtection } from "../src/index";

const H = 3600;
const run = (over: Partial<Parameters<typeof extendProtection>[0]> = {}) => ({
  startedAt: 1_000_000,
  minRuntime: 4 * H,
  maxRuntime: null,
  charged: true,
  ...over,
});

describe("extendProtection", () => {
  it("adds the extension to the current protection end while the run is protected", () => {
    const r = extendProtection(run(), 2 * H, 1_000_000 + H, 8 * H);
    expect(r).toEqual({ ok: true, minRuntime: 6 * H, protectedUntil: 1_000_000 + 6 * H, from: 1_000_000 + 4 * H });
  });

  it("counts the extension from now once the protection has ended, so the owner gets all of it", () => {
    const r = extendProtection(run(), H, 1_000_000 + 5 * H, 8 * H);
    expect(r).toEqual({ ok: true, minRuntime: 6 * H, protectedUntil: 1_000_000 + 6 * H, from: 1_000_000 + 5 * H });
  });

  it("refuses an extension past the cluster's minRuntime cap and says how much is left", () => {
    const r = extendProtection(run(), 5 * H, 1_000_000 + H, 8 * H);
    expect(r).toEqual({
      ok: false,
      code: "OVER_CAP",
      sentence: "Protection lasts at most 8 h after a start on this cluster; it can be extended by at most 4 h, not 5 h.",
    });
  });

  it("accepts an extension that reaches the cap exactly, and refuses any more after it", () => {
    const at = 1_000_000 + H;
    const r = extendProtection(run(), 4 * H, at, 8 * H);
    expect(r.ok && r.minRuntime).toBe(8 * H);
    const again = extendProtection(run({ minRuntime: 8 * H }), 60, at, 8 * H);
    expect(again.ok).toBe(false);
    expect(!again.ok && again.sentence).toBe(
      "Protection lasts at most 8 h after a start on this cluster; this run has reached it, so it cannot be extended.",
    );
  });

  it("refuses to protect a run past its maximum runtime", () => {
    const r = extendProtection(run({ maxRuntime: 5 * H }), 2 * H, 1_000_000, 8 * H);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.code).toBe("OVER_MAX_RUNTIME");
  });

  it("has nothing to extend on unallocated GPUs, which are never protected", () => {
    const r = extendProtection(run({ charged: false, minRuntime: 0 }), H, 1_000_000, 8 * H);
    expect(!r.ok && r.code).toBe("NOT_PROTECTED");
  });
});
