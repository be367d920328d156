import { strictObject, text } from "./input";

// A planned drain (R8: an operator drains a node at a time). Over the wire the time is ISO 8601 with its
// zone, so no server guesses whose clock a time was read on; the CLI and the web form read local times
// and send them so.

/** ISO 8601 date and time with a zone ("2026-12-12T02:00:00+01:00", "...Z"). */
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether the date and time exist as written ("2030-02-31", which Date.parse rolls into March, does not). */
function isCalendarTime(s: string): boolean {
  const [y, mo, d, h, mi] = [s.slice(0, 4), s.slice(5, 7), s.slice(8, 10), s.slice(11, 13), s.slice(14, 16)].map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi));
  return (
    t.getUTCFullYear() === y &&
    t.getUTCMonth() === mo - 1 &&
    t.getUTCDate() === d &&
    t.getUTCHours() === h &&
    t.getUTCMinutes() === mi
  );
}

const AT_EXAMPLE = "2026-12-12T02:00:00+01:00";

export const drainAt = text("at")
  .trim()
  .refine((s) => ISO_WITH_ZONE.test(s) && isCalendarTime(s), {
    message: `at must be a date and time with its time zone, such as ${AT_EXAMPLE}`,
  });

const reason = text("reason").trim().max(500, "reason is longer than 500 characters").optional();

/** REST POST /nodes/{name}/drain: without `at` the node drains now; with it, at that time. */
export const nodeDrainBody = strictObject({ reason, at: drainAt.optional() }, "a node drain");

/** tRPC node.planDrain (the Nodes page's "at a time"). */
export const nodePlanDrainInput = strictObject(
  { nodeId: text("nodeId").min(1, "nodeId is required").max(200), at: drainAt, reason },
  "a planned drain",
);

/** A node's plan as the pages, the CLI and REST show it; null fields when it has none. */
export interface NodeDrainPlanView {
  drainAt: string | null;
  drainReason: string | null;
  drainPlannedBy: string | null;
}

/**
 * "Sat 12 Dec 02:00" in the reader's zone (the CLI's TZ, the browser's), or with the year when it is not
 * this year's. `timeZone` for tests and the server's words ("UTC").
 */
export function maintenanceTimeWords(iso: string, now: Date = new Date(), timeZone?: string): string {
  const at = new Date(iso);
  const part = (d: Date, o: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("en-GB", { ...o, ...(timeZone ? { timeZone } : {}) }).format(d);
  const year = part(at, { year: "numeric" });
  const words = `${part(at, { weekday: "short" })} ${part(at, { day: "numeric" })} ${part(at, { month: "short" })}`;
  const time = part(at, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return `${words}${year === part(now, { year: "numeric" }) ? "" : ` ${year}`} ${time}`;
}
