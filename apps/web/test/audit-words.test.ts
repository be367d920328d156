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

  it("leaves out database ids and gives seconds as durations and ISO times as local times", () => {
    expect(auditDetailsText({ gpuType: "H100", maxMinRuntimeSec: 28_800 }, "lab1")).toBe("gpuType: H100 · maxMinRuntime: 8 h");
    const text = auditDetailsText({ tokenId: "cmx5i07nx000c8n7da6jnbz4d", expiresAt: "2026-12-02T03:20:01.053Z" }, "lab1");
    expect(text).not.toMatch(/cmx5|T03:20|\.053Z/);
    expect(text).toMatch(/^expiresAt: \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}$/);
  });

  it("gives a changed setting as from → to, durations in words and an unset one as none", () => {
    expect(auditActionText("cluster.policy")).toBe("changed a cluster's policy");
    expect(
      auditDetailsText(
        { target: "h100", squattingUnprotectAfterSec: { from: null, to: 14_400 }, debugMaxGpusPerUser: { from: 8, to: 16 } },
        "h100",
      ),
    ).toBe("squattingUnprotectAfter: none → 4 h · debugMaxGpusPerUser: 8 → 16");
  });
});
