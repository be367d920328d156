import { formatDuration } from "./format";
import type { HoldRole, JobHold } from "./snapshot";

const ROLE_WORDS: Record<Exclude<HoldRole, "owner" | "other">, string> = {
  operator: "operator",
  admin: "admin",
  manager: "a manager of its budget",
};

const agoText = (at: number, now: number): string => (now - at < 60 ? "just now" : `${formatDuration(now - at)} ago`);

/**
 * "Held by Ada Lovelace (operator) 25 min ago, so it will not start until released; only an operator or
 * an admin may release it: tranche release 42". Who may release follows the domain's rule
 * (mayReleaseHold): an owner's hold its owner (and its managers, operators, admins); anyone else's hold
 * only they, operators and admins, so the owner reads whom to ask rather than a command refused.
 */
export function heldWords(hold: JobHold, now: number, jobId: string): string {
  const release = `tranche release ${jobId}`;
  const when = agoText(hold.at, now);
  if (hold.byRole === "owner") return `Held by its owner ${when}, so it will not start until released: ${release} releases it`;
  const who = hold.byRole === "other" ? hold.byName : `${hold.byName} (${ROLE_WORDS[hold.byRole]})`;
  const may =
    hold.byRole === "operator" || hold.byRole === "admin"
      ? "only an operator or an admin may release it"
      : "only they, an operator or an admin may release it";
  return `Held by ${who} ${when}, so it will not start until released; ${may}: ${release}`;
}
