import { createElement } from "react";
import type { BudgetTreeNodeView } from "@tranche/contracts";
import { TreeShape } from "../../app/(app)/budgets/tree-shape";
import { renderWithAnswers } from "./render-with-answers";

/**
 * A node of budget.tree's answer, as the server marks it: by default one the caller manages and may
 * reshape, taking children while it has no members. Each test's tree says what differs.
 */
export function treeNode(
  path: string,
  children: BudgetTreeNodeView[] = [],
  marks: Partial<Omit<BudgetTreeNodeView, "path" | "children">> = {},
): BudgetTreeNodeView {
  const members = marks.members ?? 0;
  return {
    id: path,
    name: path.split("/").pop()!,
    path,
    parentId: path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : null,
    isBudget: children.length === 0,
    editable: true,
    managesChildren: true,
    takesChildren: members === 0,
    members,
    maxGpusPerUser: null,
    perCluster: {},
    children,
    ...marks,
  };
}

/** The Budgets page's Shape panel for `node`, as the server first renders it. */
export const shapeHtml = (node: BudgetTreeNodeView, root: BudgetTreeNodeView, clusters: string[] = []) =>
  renderWithAnswers(createElement(TreeShape, { node, root, clusters, onArchived: () => {} }), () => {}).html;
