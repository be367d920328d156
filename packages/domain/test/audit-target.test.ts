import { describe, expect, it } from "vitest";
import { auditTargetLabel } from "../src/admin/audit";

describe("auditTargetLabel", () => {
  it("names an entry's target by what a person recognises, the stored id only as a last resort", () => {
    expect(auditTargetLabel({ target: "lab/vision", email: "a@x" }, "cmx1")).toBe("lab/vision");
    expect(auditTargetLabel({ name: "demo workload generator" }, "cmx5fpp9h000ei97dfjbqeg1k")).toBe("demo workload generator");
    expect(auditTargetLabel({ node: "b200-1", from: "READY" }, "cmx2")).toBe("b200-1");
    expect(auditTargetLabel({ parent: "lab", cluster: "b200" }, "cmx3")).toBe("lab");
    expect(auditTargetLabel({}, "cmx4")).toBe("cmx4");
  });
});
