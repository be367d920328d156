import { heldWords, type HoldRole, type JobHold } from "@tranche/scheduler-core";
import { sentenceNameSql, shownUserName } from "../user-name";
import { toSec } from "./time";

/** How a held job's sentence names its holder: "owner" for its owner, else by their role now. */
export function holdRoleOf(role: string, isOwner: boolean): HoldRole {
  if (isOwner) return "owner";
  if (role === "OPERATOR") return "operator";
  if (role === "ADMIN") return "admin";
  if (role === "MANAGER") return "manager";
  return "other";
}

/**
 * Who held a job of alias `j` and when, as one JSON array (name, role, by its owner, epoch seconds of
 * its latest HELD event), for HELD rows only; null otherwise. Only the few held jobs pay for the lookups.
 */
export const holdSql = (j: string) => `CASE WHEN ${j}.state = 'HELD' AND ${j}."heldBy" IS NOT NULL THEN (
    SELECT json_build_array(${sentenceNameSql("h")}, h.role, h.id = ${j}."userId",
      (SELECT floor(extract(epoch FROM max(e.at))) FROM job_event e WHERE e."jobId" = ${j}.id AND e.kind = 'HELD'))
    FROM "user" h WHERE h.id = ${j}."heldBy") END`;

export type HoldTuple = [name: string, role: string, byOwner: boolean, at: number | null] | null;

/** The snapshot's hold from holdSql's array; null when its time is not known (no HELD event). */
export function holdOf(t: HoldTuple): JobHold | null {
  if (t === null || t[3] === null) return null;
  return { byName: t[0], byRole: holdRoleOf(t[1], t[2]), at: t[3] };
}

/**
 * The reason a hold stores at once, in the core's words (heldWords) less the budget's numbers, which
 * the next cycle adds: without it the job would read its last waiting reason until then.
 */
export function heldReasonNow(actor: { id: string; name: string; role: string }, ownerId: string, jobId: number, at: Date) {
  const hold: JobHold = {
    byName: shownUserName(actor.name) || "(no name)",
    byRole: holdRoleOf(actor.role, actor.id === ownerId),
    at: toSec(at),
  };
  return {
    sentence: `${heldWords(hold, hold.at, String(jobId))}.`,
    details: { position: null, heldByName: hold.byName, heldByRole: hold.byRole, heldAt: hold.at },
  };
}
