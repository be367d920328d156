import { describe, expect, it } from "vitest";
import { auditActionText, auditDetailsText } from "../lib/audit-words";

describe("the audit log in words", () => {
  it("names an action in words, and an unknown code without its dots", () => {
    expect(auditActionText("token.create")).toBe("created an API token");
    expect(auditActionText("node.drain")).toBe("drained a node");
    expect(auditActionText("widget.frobnicate")).toBe("widget frobnicate");
  });

  it("shows details as key: value text, never JSON, without repeating the target", () => {
    expect(auditDetailsText({ name: "demo workload generator" }, "demo workload generator")).toBe("");
    expect(auditDetailsText({ users: 150 }, "demo")).toBe("users: 150");
    expect(auditDetailsText({ node: "b200-1", from: "READY", to: "DRAINING", reason: "fan" }, "b200-1")).toBe(
      "from: ready · to: draining · reason: fan",
    );
    expect(
      auditDetailsText(
        {
          cluster: "b200",
          parent: "lab",
          changed: [{ treeNodeId: "x", path: "lab/vision", fromPpm: 300_000, toPpm: 350_000 }],
          note: null,
        },
        "lab",
      ),
    ).toBe("cluster: b200 · changed: lab/vision 30% → 35%");
  });
});
