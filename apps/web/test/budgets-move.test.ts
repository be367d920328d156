import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { BudgetTreeNodeView } from "@tranche/domain";
import { MoveConfirm, moveQuestion, moveTargets } from "../app/(app)/budgets/move-node";
import { shapeHtml, treeNode } from "./support/tree-nodes";

// A tree as budget.tree answers it for Maya, who manages lab/language: the server marks where she may
// add (managesChildren), which nodes may get children (takesChildren: here, those without members, no
// jobs being charged) and what she may reshape (editable).
function node(path: string, children: BudgetTreeNodeView[] = [], members = 0, ppm = 0): BudgetTreeNodeView {
  const inLanguage = path === "lab/language" || path.startsWith("lab/language/");
  return treeNode(path, children, {
    members,
    editable: inLanguage && path !== "lab/language",
    managesChildren: inLanguage,
    perCluster: { b200: { ppm } as never, h100: { ppm: ppm / 2 } as never },
  });
}
const detection = node("lab/language/agents/detection", [], 4, 300_000);
const agents = node("lab/language/agents", [detection, node("lab/language/agents/tools", [], 2)], 0, 100_000);
const pretraining = node("lab/language/pretraining", [], 3, 350_000);
const language = node("lab/language", [agents, pretraining], 0, 450_000);
const vision = node("lab/vision", [node("lab/vision/perception", [], 5)], 0, 300_000);
const root = node("lab", [language, vision]);

describe("moving a node from the Budgets page", () => {
  it("offers as new parents only the nodes the server says the caller may add under, never the node's own subtree or its parent", () => {
    expect(moveTargets(root, detection)).toEqual(["lab/language"]);
    // An admin's tree marks every node: lab/vision is offered to them, never to Maya above.
    const everywhere = (n: BudgetTreeNodeView): BudgetTreeNodeView => ({
      ...n,
      managesChildren: true,
      children: n.children.map(everywhere),
    });
    expect(moveTargets(everywhere(root), everywhere(detection))).toContain("lab/vision");
  });

  it("never offers a budget the server would refuse as a parent (members, or jobs charged to it)", () => {
    // pretraining and tools have members; agents' only other candidate is its own parent.
    expect(moveTargets(root, agents)).toEqual([]);
    const jobsOnly = { ...node("lab/language/eval"), takesChildren: false }; // no members, but jobs charged
    const withEval = { ...root, children: [{ ...language, children: [...language.children, jobsOnly] }, vision] };
    expect(moveTargets(withEval, detection)).toEqual(["lab/language"]);
    const html = shapeHtml(detection, root, ["b200", "h100"]);
    expect(html).not.toContain('value="lab/language/pretraining"');
    expect(html).not.toContain('value="lab/language/agents/tools"');
    expect(html).toContain('<option value="lab/language">lab/language</option>');
  });

  it("shows Move with those parents in the Shape panel of a node the caller may reshape, and none for their own node", () => {
    const shape = (n: BudgetTreeNodeView) => shapeHtml(n, root, ["b200", "h100"]);
    const html = shape(detection);
    expect(html).toContain('aria-label="New parent for lab/language/agents/detection"');
    expect(html).toContain('<option value="lab/language">lab/language</option>');
    expect(html).not.toContain('value="lab/vision"');
    expect(html).toMatch(/<button class="btn" disabled="">Move<\/button>/);
    expect(shape(language)).not.toContain("New parent for");
  });

  it("asks in words what the move does: the path it gets, what goes with it, its share kept as a share of the new parent", () => {
    expect(moveQuestion(agents, "lab/language/pretraining", ["b200", "h100"])).toBe(
      "Move lab/language/agents under lab/language/pretraining? It becomes lab/language/pretraining/agents. " +
        "Its 2 budgets, their 6 members and the jobs charged to them go with it. " +
        "Its share stays as it is: 10% on b200, 5% on h100, now of lab/language/pretraining instead of lab/language.",
    );
    expect(moveQuestion(detection, "lab/language", ["b200"])).toBe(
      "Move lab/language/agents/detection under lab/language? It becomes lab/language/detection. " +
        "Its 4 members and the jobs charged to it go with it. " +
        "Its share stays as it is: 30% on b200, now of lab/language instead of lab/language/agents.",
    );
    // No "0 members": what goes with an empty budget or subtree is said without a count of none.
    expect(moveQuestion(node("lab/vision/empty"), "lab/language", [])).toBe(
      "Move lab/vision/empty under lab/language? It becomes lab/language/empty. The jobs charged to it go with it.",
    );
    expect(moveQuestion(node("lab/vision/group", [node("lab/vision/group/a")]), "lab/language", [])).toBe(
      "Move lab/vision/group under lab/language? It becomes lab/language/group. Its 1 budget and the jobs charged to it go with it.",
    );
    const html = renderToStaticMarkup(
      createElement(MoveConfirm, { question: "Move it?", busy: false, onYes: () => {}, onNo: () => {} }),
    );
    expect(html).toContain("Move it?");
    expect(html).toContain(">Yes, move it</button>");
    expect(html).toContain(">Cancel</button>");
  });
});
