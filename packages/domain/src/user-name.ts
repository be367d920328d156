import { LIMITS } from "@tranche/contracts";

/**
 * A user's name where a list repeats it (once per job of a queue, a snapshot, a listing, a GPU cell):
 * at most LIMITS.personNameChars characters, whatever the row holds. Names are checked when set
 * (contracts' personName), but a row written before that check could hold megabytes, and one 200 KB
 * name repeated over a few thousand pending jobs crashed the worker and the web app.
 */
export const userNameSql = (alias: string) => `left(${alias}.name, ${LIMITS.personNameChars})`;

/**
 * The name a scheduler sentence gives a person (userNameSql), and for a row with no name (written
 * before names were checked) a plain stand-in: never their e-mail, as sentences reach every
 * signed-in reader of the queue and job pages, who are shown display names only.
 */
export const sentenceNameSql = (alias: string) => `COALESCE(NULLIF(${userNameSql(alias)}, ''), '(no name)')`;

/** The same cap in JS (by characters, as Postgres's left() counts them). */
export function shownUserName(name: string): string {
  if (name.length <= LIMITS.personNameChars) return name;
  return Array.from(name.slice(0, 2 * LIMITS.personNameChars))
    .slice(0, LIMITS.personNameChars)
    .join("");
}
