import type { BudgetTreeNodeView } from "@tranche/contracts";
import { plural } from "./words";

/**
 * Why a node offers no "add a child", for a node the server marked as refusing children (takesChildren,
 * parent-rule.ts decides): the mark is the answer, the members count only picks the words. Null where
 * the server takes children under it.
 */
export function noChildrenText(node: BudgetTreeNodeView): string | null {
  if (node.takesChildren) return null;
  return node.members > 0
    ? `${node.name} cannot get children: it is a budget with ${plural(node.members, "member")}, and members belong to budgets at the ends of the tree. Remove them first.`
    : `${node.name} cannot get children while jobs charged to it are waiting or running.`;
}
