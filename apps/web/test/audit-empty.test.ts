import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { AuditView } from "../components/audit-view";
import { renderWithAnswers } from "./support/render-with-answers";

describe("the audit log of a new lab", () => {
  it("says nothing is recorded yet, not that nothing matches filters nobody set", () => {
    const { html, asked } = renderWithAnswers(createElement(AuditView), (api, qc) => {
      qc.setQueryData(api.admin.audit.queryKey({ limit: 200 }), []);
    });
    expect(asked).toEqual([{ path: "admin.audit", input: { limit: 200 } }]);
    expect(html).toContain("Nothing recorded yet");
    expect(html).not.toContain("Nothing matches these filters");
  });

  it("names who made each change, the e-mail under the name, and says what Who and On take", () => {
    const { html } = renderWithAnswers(createElement(AuditView), (api, qc) => {
      qc.setQueryData(api.admin.audit.queryKey({ limit: 200 }), [
        {
          id: "1",
          at: "2026-12-07T09:00:00Z",
          actor: { id: "u1", email: "omar@lab.example", name: "Omar Operator" },
          action: "node.drain",
          targetType: "node",
          targetId: "n1",
          target: "h100-3",
          details: { reason: "fan" },
        },
      ] as never);
    });
    expect(html).toContain('Omar Operator<div class="muted">omar@lab.example</div>');
    expect(html).toContain('placeholder="e-mail or part of it"');
    expect(html).toContain("drained a node");
  });
});
