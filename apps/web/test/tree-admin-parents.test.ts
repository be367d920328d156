import { createElement } from "react";
import { describe, expect, it } from "vitest";
import type { BudgetTreeNodeView } from "@tranche/contracts";
import { NodePanel } from "../app/(app)/admin/node-panel";
import { TreeShape } from "../app/(app)/budgets/tree-shape";
import { renderWithAnswers } from "./support/render-with-answers";

// An admin's tree: they manage everything; the server marks which nodes take children (takesChildren).
// lab/vision/perception has members, lab/vision/eval has jobs waiting: neither may become a parent.
function node(path: string, children: BudgetTreeNodeView[] = [], members = 0, takesChildren = members === 0) {
  const v: BudgetTreeNodeView = {
    id: path,
    name: path.split("/").pop()!,
    path,
    parentId: path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : null,
    isBudget: children.length === 0,
    editable: path !== "lab",
    managesChildren: true,
    takesChildren,
    members,
    maxGpusPerUser: null,
    perCluster: {},
    children,
  };
  return v;
}
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

  it("offers no Add a child on a budget that cannot take one, and says why in words", () => {
    const members = panel(perception);
    expect(members).not.toContain("Add a child");
    expect(members).toContain(
      "perception cannot get children: it is a budget with 5 members, and members belong to budgets at the ends of the tree. Remove them first.",
    );
    const jobs = panel(evalBudget);
    expect(jobs).not.toContain("Add a child");
    expect(jobs).toContain("eval cannot get children while jobs charged to it are waiting or running.");
    expect(panel(empty)).toContain("Add a child");
    expect(panel(empty)).not.toContain('data-testid="no-children"');
  });

  it("the Budgets page's Shape panel says the same instead of Add a budget here", () => {
    const shape = (n: BudgetTreeNodeView) =>
      renderWithAnswers(createElement(TreeShape, { node: n, root, clusters: [], onArchived: () => {} }), () => {}).html;
    expect(shape(perception)).not.toContain("Add a budget here");
    expect(shape(perception)).toContain("perception cannot get children");
    expect(shape(empty)).toContain("Add a budget here");
  });
});
