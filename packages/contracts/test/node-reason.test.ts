import { describe, expect, it } from "vitest";
import { nodeReasonWords } from "../src/format";

describe("why a node is in its state, in words", () => {
  const now = Date.parse("2026-12-07T11:00:00Z");
  const drained = {
    state: "DRAINING",
    stateReason: "Node c1-1 reported itself unhealthy (GPU 3 has XID 79) and is draining: nothing new starts there.",
    stateChangedAt: "2026-12-07T10:42:00Z",
    healthyAgainAt: null as string | null,
  };

  it("is the stored reason while nothing has changed since", () => {
    expect(nodeReasonWords(drained, now)).toBe(drained.stateReason);
    expect(nodeReasonWords({ ...drained, state: "CORDONED", healthyAgainAt: "2026-12-07T10:50:00Z" }, now)).toBe(
      drained.stateReason,
    );
  });

  it("says a drained node is healthy again, since when, and that it returns once its jobs have left", () => {
    expect(nodeReasonWords({ ...drained, healthyAgainAt: "2026-12-07T10:50:00Z" }, now)).toBe(
      "Reported itself unhealthy 18 min ago; healthy again for the last 10 min; returns to service once its jobs have left.",
    );
  });
});
