import { aRole } from "./user-words";

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

export const cancelDrainPlanQuestion = (node: string, when: string) =>
  `Cancel the planned drain of ${node} (${when})? It stays in service, and work that could not leave by then may start there again.`;

export const disableUserQuestion = (name: string, email: string) =>
  `Disable ${name} (${email})? Their sign-ins and API tokens stop working at once; their jobs are left as they are.`;

export const cancelJobQuestion = (id: string | number, running: boolean) =>
  running
    ? `Stop job #${id}? It is asked to stop now and stopped by force after its grace period.`
    : `Cancel job #${id}? It leaves the queue and will not run; to run it later, submit it again.`;

export const removeMemberQuestion = (email: string, path: string) =>
  `Remove ${email} from ${path}? They may no longer submit to it; their jobs already waiting or running there stay charged to it.`;

export const removeManagerQuestion = (email: string, path: string) =>
  `Stop ${email} managing ${path}? They can no longer change its shares, members or jobs.`;

/** An admin keeps every power; a researcher has none to lose: any other change takes some away. */
export const takesPowerAway = (from: string, to: string) => from !== to && from !== "RESEARCHER" && to !== "ADMIN";

export const roleChangeQuestion = (name: string, email: string, from: string, to: string) =>
  `Make ${name} (${email}) ${aRole(to)} instead of ${aRole(from)}? What only ${aRole(from)} may do stops for them at once.`;
