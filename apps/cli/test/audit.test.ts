import { describe, expect, it } from "vitest";
import { auditActionFilter, auditText } from "../src/admin";

describe("tranche admin audit", () => {
  it("prints each entry's action, target and details in words, as the web's audit log shows them", () => {
    const at = "2026-12-06T15:41:34Z";
    const admin = { email: "admin@lab.example" };
    const lines = auditText(
      [
        {
          at,
          actor: admin,
          action: "node.drain",
          target: "b200-1",
          details: { target: "b200-1", from: "READY", to: "DRAINING", reason: "ECC errors" },
        },
        { at, actor: admin, action: "node.markRepaired", target: "b200-2", details: { target: "b200-2" } },
        {
          at,
          actor: admin,
          action: "budget.userLimit",
          target: "lab/vision",
          details: { target: "lab/vision", maxGpusPerUser: { from: 8, to: 16 } },
        },
        { at, actor: null, action: "user.set-password", target: "ada@lab.example", details: { target: "ada@lab.example" } },
      ],
      "UTC",
      200,
    ).split("\n");
    expect(lines[0]).toMatch(/^WHEN\s+WHO\s+ACTION\s+ON\s+DETAILS$/);
    expect(lines[1]).toMatch(
      /^6 Dec, 15:41:34\s+admin@lab\.example\s+drained a node\s+b200-1\s+ready → draining · reason: ECC errors$/,
    );
    expect(lines[2]).toMatch(/marked a node repaired\s+b200-2\s+-$/);
    expect(lines[3]).toMatch(/changed a per-user GPU limit\s+lab\/vision\s+max gpus per user: 8 → 16$/);
    expect(lines[4]).toMatch(/^6 Dec, 15:41:34\s+the system\s+set a password\s+ada@lab\.example/);
    expect(lines.join("\n")).not.toMatch(/node\.drain|markRepaired|userLimit|set-password|T15:41/);
    expect(auditText([])).toBe("No audit entries match.");
  });

  it("takes --action in the words the log shows and asks the API for its code", () => {
    expect(auditActionFilter("drained a node")).toBe("node.drain");
    expect(auditActionFilter("repaired")).toBe("node.markRepaired");
    // Codes and their prefixes, as scripts pass them, still work.
    expect(auditActionFilter("node.drain")).toBe("node.drain");
    expect(auditActionFilter("user.")).toBe("user.");
    expect(() => auditActionFilter("node")).toThrow(/^--action 'node' could mean: .*drained a node.*\. Give the words of one\.$/);
    expect(() => auditActionFilter("frobnicated")).toThrow(/^No action reads 'frobnicated'\. The actions: .*drained a node/);
  });
});
