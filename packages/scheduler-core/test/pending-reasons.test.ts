import { describe, expect, it } from "vitest";
import { PendingReasons } from "../src/pending-reasons";
import type { PendingReason } from "../src/types";

const reason = (code: PendingReason["code"], position: number | null): PendingReason => ({
  code,
  sentence: `${code} at ${position}`,
  details: { position, jobsAhead: 0, ratio: 1, gpus: 1, largestFreeGpus: 0, earliestStart: null },
});

describe("PendingReasons", () => {
  const held = reason("HELD", null);
  const order = reason("ORDER", 2);
  const reasons = new PendingReasons(["b-held", "a-order"], [held, order]);

  it("finds a reason by job id and says when a job has none", () => {
    expect(reasons.get("a-order")).toBe(order);
    expect(reasons.get("b-held")).toBe(held);
    expect(reasons.get("started")).toBeUndefined();
    expect(reasons.has("b-held")).toBe(true);
    expect(reasons.has("started")).toBe(false);
    expect(reasons.size).toBe(2);
  });

  it("iterates in the order the cycle decided, keys and values alike", () => {
    expect([...reasons]).toEqual([
      ["b-held", held],
      ["a-order", order],
    ]);
    expect([...reasons.keys()]).toEqual(["b-held", "a-order"]);
    expect([...reasons.values()]).toEqual([held, order]);
  });

  it("serialises as an object keyed by job id", () => {
    expect(JSON.parse(JSON.stringify({ pending: reasons }))).toEqual({ pending: { "b-held": held, "a-order": order } });
    expect(JSON.stringify(PendingReasons.empty())).toBe("{}");
  });
});
