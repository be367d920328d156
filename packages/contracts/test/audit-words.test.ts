import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS, auditActionsMatching, auditActionText, auditDetailsText, auditTargetText } from "../src/audit-words";

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
      "ready → draining · reason: fan",
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
    expect(auditDetailsText({ gpuType: "H100", maxMinRuntimeSec: 28_800 }, "lab1")).toBe(
      "GPU type: H100 · longest protection: 8 h",
    );
    const text = auditDetailsText({ tokenId: "cmx5i07nx000c8n7da6jnbz4d", expiresAt: "2026-12-02T03:20:01.053Z" }, "lab1");
    expect(text).not.toMatch(/cmx5|T03:20|\.053Z/);
    expect(text).toMatch(/^expires: \d{1,2} [A-Z][a-z]{2}, \d{2}:\d{2}$/);
  });

  it("gives a changed setting as from → to, durations in words and an unset one as none", () => {
    expect(auditActionText("cluster.policy")).toBe("changed a cluster's policy");
    expect(
      auditDetailsText(
        { target: "h100", squattingUnprotectAfterSec: { from: null, to: 14_400 }, debugMaxGpusPerUser: { from: 8, to: 16 } },
        "h100",
      ),
    ).toBe("squatting ends protection after: none → 4 h · debug GPUs per user: 8 → 16");
  });

  it("never shows a key, a code or JSON as stored: camelCase keys, a user's changes, a rule's match", () => {
    expect(auditActionText("budget.userLimit")).toBe("changed a per-user GPU limit");
    expect(auditActionText("widget.reTune")).toBe("widget re tune");
    expect(
      auditDetailsText({ changes: { role: { from: "RESEARCHER", to: "MANAGER" }, disabled: { from: false, to: true } } }, "x"),
    ).toBe("role: researcher → manager · disabled: no → yes");
    expect(auditDetailsText({ role: "MANAGER", budgets: ["lab/vision"], rules: ["cmx5i07nx000c8n7da6jnbz4d"] }, "x")).toBe(
      "role: manager · budgets: lab/vision",
    );
    expect(auditDetailsText({ nodeName: "h100-9" }, "h100")).toBe("only for host: h100-9");
    // As stored (jsonb orders keys by length): "to" before "from"; shown as one change.
    expect(auditDetailsText({ to: "DRAINING", from: "READY", node: "b200-3", reason: "ECC" }, "b200-3")).toBe(
      "ready → draining · reason: ECC",
    );
    expect(auditDetailsText({ to: 8, from: null }, "lab/vision")).toBe("none → 8");
    expect(auditTargetText("EMAIL_DOMAIN:example.org")).toBe("e-mail domain example.org");
    expect(auditTargetText("GROUP:ml-team")).toBe("group ml-team");
    expect(auditTargetText("lab/vision")).toBe("lab/vision");
  });
});

describe("the audit log's actions to choose from", () => {
  it("lists every action by its words, for the web's dropdown and the CLI's --action", () => {
    expect(AUDIT_ACTIONS).toContainEqual({ code: "node.drain", words: "drained a node" });
    expect(AUDIT_ACTIONS.map((a) => a.words)).toEqual([...AUDIT_ACTIONS.map((a) => a.words)].sort((a, b) => a.localeCompare(b)));
  });

  it("finds the action a person types as the log shows it, whole or in part; a code or its prefix too", () => {
    const codes = (t: string) => auditActionsMatching(t).map((a) => a.code);
    expect(codes("drained a node")).toEqual(["node.drain"]);
    expect(codes("  Drained a Node ")).toEqual(["node.drain"]);
    expect(codes("marked a node repaired")).toEqual(["node.markRepaired"]);
    expect(codes("node.drain")).toEqual(["node.drain"]);
    expect(codes("user.")).toEqual(expect.arrayContaining(["user.create", "user.set-password"]));
    expect(codes("user.").every((c) => c.startsWith("user."))).toBe(true);
    expect(codes("password")).toEqual(expect.arrayContaining(["user.password-link", "user.set-password"]));
    expect(codes("a node")).toEqual(expect.arrayContaining(["node.cordon", "node.drain", "node.markRepaired"]));
    expect(codes("frobnicated")).toEqual([]);
    expect(codes("")).toEqual([]);
  });
});
