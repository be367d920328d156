import { z } from "zod";
import { strictObject, text, typeError } from "./input";
import { LIMITS } from "./limits";

/**
 * A job's start, its preemption warning, how it ended (the end states: FAILED, PREEMPTED, KILLED, LOST), a
 * retry, a squatting flag. A job array notifies its start and its end once, not task by task: its end is
 * FINISHED, FAILED (a task failed, was killed, lost or preempted without a requeue) or CANCELLED (the
 * others were cancelled), as an `:ok` dependency on the array reads it. NODE_RETIRED: an operator retired
 * the node a waiting job's node list leaves it, so it can never start as its lists stand (retire-notices.ts).
 */
export const NOTIFICATION_KINDS = [
  "STARTED",
  "PREEMPTION_WARNING",
  "FINISHED",
  "FAILED",
  "PREEMPTED",
  "KILLED",
  "LOST",
  "RETRIED",
  "SQUATTING",
  "CANCELLED",
  "NODE_RETIRED",
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** What the inbox and the webhook carry for one notification. */
export interface NotificationView {
  id: string;
  kind: string;
  jobId: number | null;
  title: string;
  sentence: string;
  createdAt: string;
  read: boolean;
  details: Record<string, unknown>;
  /** Why it was not POSTed to the owner's webhook, in words (its account was disabled then); null otherwise. */
  webhookNotSent: string | null;
}

export const listNotificationsInput = strictObject(
  {
    unread: z.boolean({ error: typeError("unread", "unread must be true or false") }).optional(),
    limit: z
      .number({ error: typeError("limit", "limit must be a number") })
      .int("limit must be a whole number")
      .min(1, "limit must be between 1 and 500")
      .max(500, "limit must be between 1 and 500")
      .default(100),
  },
  "a notification query",
);

export const markNotificationsReadInput = strictObject(
  {
    ids: z
      .array(z.string().regex(/^\d{1,18}$/, "ids are notification ids"), { error: "ids must be a list of notification ids" })
      .max(500, "at most 500 ids at once")
      .optional()
      .describe("The notifications to mark read; omitted: all of them"),
  },
  "a mark-read request",
);

/** The most characters a webhook address may have. */
export const MAX_WEBHOOK_CHARS = 2000;

/** A user's webhook as they read it back: where notifications are POSTed, and whether they are signed. */
export interface WebhookView {
  url: string | null;
  signed: boolean;
}

/**
 * The answer to setting a webhook or asking for a new secret: the signing secret just made ("whsec_..."),
 * shown this once and never again; null when the webhook was turned off.
 */
export interface WebhookSetView extends WebhookView {
  secret: string | null;
}

/** A user's webhook: an http(s) address their notifications are POSTed to as JSON, or null for none. */
export const setWebhookInput = strictObject(
  {
    url: text("url")
      .trim()
      .max(MAX_WEBHOOK_CHARS, `url is longer than ${MAX_WEBHOOK_CHARS} characters`)
      .refine((u) => {
        try {
          const p = new URL(u);
          return (p.protocol === "http:" || p.protocol === "https:") && p.username === "" && p.password === "";
        } catch {
          return false;
        }
      }, "url must be an http:// or https:// address without a user or password in it")
      .nullable(),
  },
  "a webhook setting",
);

/** A budget's per-user GPU limit, set by its managers; null removes it. */
export const setUserLimitInput = strictObject(
  {
    budget: text("budget").trim().min(1, "budget is required").max(LIMITS.keyChars, "budget is too long"),
    maxGpusPerUser: z
      .number({ error: typeError("maxGpusPerUser", "maxGpusPerUser must be a number or null") })
      .int("maxGpusPerUser must be a whole number")
      .min(1, "maxGpusPerUser must be at least 1 (or null for no limit)")
      .max(LIMITS.jobGpus, `maxGpusPerUser must be at most ${LIMITS.jobGpus}`)
      .nullable(),
  },
  "a per-user limit",
);
export type SetUserLimitInput = z.input<typeof setUserLimitInput>;
