import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { BudgetTreeNodeView } from "@tranche/contracts";
import { NodePanel } from "../app/(app)/admin/node-panel";
import { renderWithAnswers } from "./support/render-with-answers";
import { shapeHtml, treeNode } from "./support/tree-nodes";

// An admin's tree: they manage everything; the server marks which nodes take children (takesChildren).
// lab/vision/perception has members, lab/vision/eval has jobs waiting: neither may become a parent.
const node = (path: string, children: BudgetTreeNodeView[] = [], members = 0, takesChildren = members === 0) =>
  treeNode(path, children, { members, takesChildren, editable: path !== "lab" });
const perception = node("lab/vision/perception", [], 5);
const evalBudget = node("lab/vision/eval", [], 0, false);
const vision = node("lab/vision", [perception, evalBudget]);
const empty = node("lab/language/new-team");
const language = node("lab/language", [node("lab/language/agents", [], 2), empty]);
const root = node("lab", [language, vision]);

const panel = (n: BudgetTreeNodeView) =>
  renderWithAnswers(
    createElement(NodePanel, {
      node: n,
      root,
      clusters: ["b200"],
      onNotice: { notice: null, ok: () => {}, fail: () => {}, clear: () => {} },
      onSelect: () => {},
    }),
    () => {},
  ).html;

describe("the admin's Budget tree offers only what the server accepts", () => {
  it("offers as new parents only the nodes marked takesChildren, as the Budgets page does", () => {
    const html = panel(node("lab/language/agents", [], 2));
    expect(html).toContain('<option value="lab/vision">lab/vision</option>');
    expect(html).toContain('<option value="lab/language/new-team">lab/language/new-team</option>');
    expect(html).not.toContain('value="lab/vision/perception"');
    expect(html).not.toContain('value="lab/vision/eval"');
  });

  it("offers no Add a budget here on a budget that cannot take one, and says why in words", () => {
    const members = panel(perception);
    expect(members).not.toContain("Add a budget here");
    expect(members).toContain(
      "perception cannot get children: it is a budget with 5 members, and members belong to budgets at the ends of the tree. Remove them first.",
    );
    const jobs = panel(evalBudget);
    expect(jobs).not.toContain("Add a budget here");
    expect(jobs).toContain("eval cannot get children while jobs charged to it are waiting or running.");
    expect(panel(empty)).toContain("Add a budget here");
    expect(panel(empty)).not.toContain('data-testid="no-children"');
  });

  it("is the Budgets page's own form: the same field, words and refusal in both panels", () => {
    const form = (html: string) => /<form[^>]*>(?:(?!<\/form>)[\s\S])*?New budget under[\s\S]*?<\/form>/.exec(html)?.[0];
    const refusal = (html: string) => /<p[^>]*data-testid="no-children"[^>]*>[^<]*<\/p>/.exec(html)?.[0];
    expect(form(panel(empty))).toContain('aria-label="New budget under lab/language/new-team"');
    expect(form(panel(empty))).toBe(form(shapeHtml(empty, root)));
    expect(refusal(panel(perception))).toContain("perception cannot get children");
    expect(refusal(panel(perception))).toBe(refusal(shapeHtml(perception, root)));
    expect(refusal(shapeHtml(evalBudget, root))).toBe(refusal(panel(evalBudget)));
  });
});
