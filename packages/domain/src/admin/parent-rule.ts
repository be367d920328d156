/**
 * Which tree nodes may get children: budgets are the leaves, so a node that jobs are charged to (pending
 * or running) or that has members may not become a parent. One rule for the writes that refuse it
 * (tree-admin.ts: adding under a node, moving a node under another) and for the tree the Budgets page
 * reads (budgets/tree.ts `takesChildren`), which offers only the parents the server accepts.
 */
export function childrenRefusal(path: string, activeJobs: number, members: number): string | null {
  if (activeJobs > 0)
    return `'${path}' is a budget with ${activeJobs} pending or running job${activeJobs === 1 ? "" : "s"}; a budget with jobs cannot get children`;
  if (members > 0)
    return `'${path}' is a budget with ${members} member${members === 1 ? "" : "s"}; remove them before giving it children (members belong to budgets, the leaves)`;
  return null;
}
