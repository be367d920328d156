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
});
