/** "an admin", "a researcher": a role as a sentence says it. */
export const aRole = (role: string) => `${/^[AEIOU]/.test(role) ? "an" : "a"} ${role.toLowerCase()}`;

/**
 * What a change on the Users page did, in words: it said "ada@lab.example: saved." for a role change,
 * a disable and an enable alike.
 */
export function userChangedText(
  u: { name: string; role: string; disabled: boolean },
  change: { role?: string; disabled?: boolean },
): string {
  if (change.disabled === true) return `${u.name} is disabled: their sign-ins and API tokens no longer work.`;
  if (change.disabled === false) return `${u.name} may sign in again.`;
  if (change.role !== undefined) return `${u.name} is now ${aRole(u.role)}.`;
  return `${u.name}: saved.`;
}
