/**
 * The questions asked before an action that cannot be taken back or that stops someone's work, so a
 * slip of the mouse does not revoke, archive or sign anyone out.
 */

export const revokeTokenQuestion = (name: string) =>
  `Revoke the token "${name}"? Whatever uses it is refused from now on; this cannot be undone.`;

export const revokeHostQuestion = (host: string) =>
  `Revoke the credential of ${host}? Its agent is refused from its next call until it enrolls again with a new token; the jobs running there stop once it is counted as lost (resumable ones go back in the queue).`;

export const archiveQuestion = (path: string) => `Archive ${path}? It leaves the tree for good and its name stays taken.`;

export const removeRuleQuestion = (kind: "group" | "e-mail domain", value: string) =>
  `Remove the sign-on rule for ${kind} ${value}? People it matches get no role or budgets from it at their next sign-in.`;

export const drainQuestion = (node: string) =>
  `Drain ${node}? Nothing new starts there, and each running job is stopped as soon as its contract allows.`;

export const disableUserQuestion = (name: string, email: string) =>
  `Disable ${name} (${email})? Their sign-ins and API tokens stop working at once; their jobs are left as they are.`;
