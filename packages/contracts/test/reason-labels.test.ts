import { describe, expect, it } from "vitest";
import { NODE_STATE_REASON_CODES, PENDING_REASON_CODES, PREEMPT_REASON_CODES, START_REASON_CODES } from "@tranche/scheduler-core";
import { reasonLabel } from "../src/reason-labels";

// Pages show a plain label for every reason code; the code stays in JSON and tooltips.
const plain = (label: string) => expect(label).toMatch(/^(?![A-Z_]+$)[A-Za-z0-9 #'-]+$/);

describe("reasonLabel", () => {
  it("has a plain label of its own for every code the core writes", () => {
    for (const c of [...PENDING_REASON_CODES, ...NODE_STATE_REASON_CODES]) plain(reasonLabel(c));
    for (const c of START_REASON_CODES) plain(reasonLabel(c, { kind: "STARTED" }));
    for (const c of PREEMPT_REASON_CODES) plain(reasonLabel(c, { kind: "PREEMPTED" }));
    expect(reasonLabel("CONTRACTS")).toBe("waiting for protected jobs");
    expect(reasonLabel("DEBUG_LANE", { kind: "STARTED" })).not.toBe(reasonLabel("DEBUG_LANE", { kind: "PREEMPTED" }));
    expect(reasonLabel("CONSOLIDATION", { kind: "PREEMPTED" })).toBe("moved to free GPUs elsewhere");
    plain(reasonLabel("CONSOLIDATION", { kind: "MOVED" }));
  });

  it("names the job a reservation is for", () => {
    expect(reasonLabel("RESERVED_FOR", { details: { reservedForJobId: "135" } })).toBe("nodes reserved for #135");
  });

  it("names the job a dependency waits for", () => {
    const one = [{ jobId: "81", condition: "ok", state: "WAITING" }];
    expect(reasonLabel("DEPENDENCY", { details: { dependencies: one } })).toBe("waiting for #81");
    expect(reasonLabel("DEPENDENCY", { details: { dependencies: [...one, { ...one[0], jobId: "94" }] } })).toBe(
      "waiting for #81 and 1 more",
    );
  });
});
