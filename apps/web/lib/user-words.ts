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

/**
 * The Users page's count over its list: "312 people, 25 shown", "12 people match “ada”, 12 shown",
 * "312 people, 26 to 50 shown" on a later page; the whole list is never sent at once.
 */
export function userCountText(total: number, offset: number, shown: number, q: string): string {
  if (total === 0) return q ? `No one's name or e-mail holds “${q}”.` : "No users yet.";
  const people = `${total.toLocaleString("en-US")} ${total === 1 ? "person" : "people"}`;
  const match = q ? ` ${total === 1 ? "matches" : "match"} “${q}”` : "";
  const which = offset === 0 ? `${shown}` : `${offset + 1} to ${offset + shown}`;
  return `${people}${match}, ${which} shown`;
}
