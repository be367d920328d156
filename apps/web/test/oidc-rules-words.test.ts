import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { OidcRules } from "../app/(app)/admin/users/oidc-rules";
import { renderWithAnswers } from "./support/render-with-answers";

describe("single sign-on rules", () => {
  it("name what a rule matches as its form and the audit log do ('e-mail domain'), not a bare 'domain'", () => {
    const { html } = renderWithAnswers(createElement(OidcRules), (api, qc) => {
      qc.setQueryData(api.admin.oidcRules.queryKey(), [
        { id: "r1", match: "EMAIL_DOMAIN", value: "lab.example", role: "RESEARCHER", budgets: [] },
        { id: "r2", match: "GROUP", value: "ml-team", role: "MANAGER", budgets: ["lab/vision"] },
      ] as never);
    });
    expect(html).toContain("e-mail domain <b>lab.example</b>");
    expect(html).toContain('aria-label="Remove the rule for e-mail domain lab.example"');
    expect(html).toContain("group <b>ml-team</b>");
  });
});
