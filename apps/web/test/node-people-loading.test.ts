import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { NodePeople } from "../app/(app)/admin/node-people";
import { renderWithAnswers } from "./support/render-with-answers";

const notice = { notice: null, ok: () => {}, fail: () => {}, clear: () => {} };
const render = (seed: Parameters<typeof renderWithAnswers>[1]) =>
  renderWithAnswers(createElement(NodePeople, { path: "lab/language", isBudget: true, onNotice: notice }), seed).html;

describe("the admin tree's members and managers", () => {
  it("says nothing about the people while they load (the tree page showed 'Nobody.' for a node with managers)", () => {
    const html = render(() => {});
    expect(html).not.toContain("Nobody");
    expect(html).toContain("Loading…");
  });

  it("says Nobody only when the answer has no one", () => {
    const html = render((api, qc) =>
      qc.setQueryData(api.admin.people.queryKey({ path: "lab/language" }), {
        members: [],
        managers: [{ email: "maya@tranche.example", name: "Maya Manager" }],
      } as never),
    );
    expect(html).toContain("Nobody yet.");
    expect(html).toContain("Maya Manager &lt;maya@tranche.example&gt;");
    expect(html).not.toContain("Loading…");
  });
});
