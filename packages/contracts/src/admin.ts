import type { WhatIfResult } from "./budget";
import { z } from "zod";
import { duration } from "./duration";
import {
  controlCharsMessage,
  hasControlChars,
  hasReorderingChars,
  reorderingCharsMessage,
  hasLoneSurrogate,
  loneSurrogateMessage,
  strictObject,
  text,
  typeError,
} from "./input";
import { LIMITS } from "./limits";

// Administration inputs (REST /api/v1, tRPC, CLI). Field messages start with the field's name so a
// message read alone still says which field is at fault.

export const ROLE_NAMES = ["RESEARCHER", "MANAGER", "OPERATOR", "ADMIN"] as const;

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** One name of the tree (a path segment): lowercase letters, digits, '.', '_' and '-'. */
export const treeNodeName = (field: string) =>
  z
    .string({ error: typeError(field, `${field} must be a string`) })
    .trim()
    .min(1, `${field} is required`)
    .max(64, `${field} is longer than 64 characters`)
    .regex(NAME, `${field} may hold only lowercase letters, digits, '.', '_' and '-', starting with a letter or digit`);

/** A tree path such as "lab/vision"; trailing slashes are ignored. */
export const treePath = (field: string) =>
  z
    .string({ error: typeError(field, `${field} must be a string`) })
    .trim()
    .min(1, `${field} is required`)
    .transform((s) => s.replace(/^\/+|\/+$/g, ""))
    .refine((s) => s.split("/").every((p) => NAME.test(p)), `${field} must be a tree path such as lab/vision`);

const email = z
  .string({ error: typeError("email", "email must be a string") })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "email is not an e-mail address" }));

const role = z.enum(ROLE_NAMES, { error: `role must be one of ${ROLE_NAMES.join(", ")}` });

/** POST /budgets: a new tree node under `parent` (leave parent out for the root of an empty tree). */
export const createTreeNodeInput = strictObject(
  {
    parent: treePath("parent").optional(),
    name: treeNodeName("name"),
  },
  "a tree node",
);
export type CreateTreeNodeInput = z.input<typeof createTreeNodeInput>;

/** PATCH /budgets/{path}: rename and/or move under another parent. */
export const updateTreeNodeInput = strictObject(
  { name: treeNodeName("name").optional(), parent: treePath("parent").optional() },
  "a tree node change",
).refine((v) => v.name !== undefined || v.parent !== undefined, {
  message: "name or parent is required: give a new name, a new parent, or both",
  path: ["name"],
});
export type UpdateTreeNodeInput = z.input<typeof updateTreeNodeInput>;

const allocationCluster = text("cluster").trim().min(1, "cluster is required");
/** A node's share of its parent's allocation on one cluster (0..1), exact in ppm. */
const allocationShare = z
  .number({ error: typeError("share", "share must be a number between 0 and 1 (a fraction of the parent's allocation)") })
  .min(0, "share cannot be negative")
  .max(1, "share cannot exceed 1 (100%: all of the parent's allocation)")
  .refine((v) => Math.abs(v * 1e6 - Math.round(v * 1e6)) < 1e-6, "share has more than 6 decimals (it is stored in ppm)");

/** PUT /budgets/{path}/allocation: the node's share of its parent's allocation on one cluster (0..1). */
export const putAllocationInput = strictObject(
  {
    cluster: allocationCluster,
    share: allocationShare,
    note: text("note").max(500, "note is longer than 500 characters").optional(),
  },
  "an allocation",
);

/**
 * POST /budgets/{path}/allocation/what-if: what that share would change, stored nowhere (the first
 * `limit` jobs of the queue before and after).
 */
export const previewAllocationInput = strictObject(
  {
    cluster: allocationCluster,
    share: allocationShare,
    limit: z.number().int("limit must be a whole number").min(1).max(200).default(10),
  },
  "an allocation preview",
);

/** POST /budgets/{path}/allocation/what-if's preview: the page's, with the node and share it was asked for. */
export type SharePreview = WhatIfResult & { path: string; share: number };

/** POST /budgets/{path}/members and /managers. */
export const treeNodePersonInput = strictObject({ email }, "a member or manager");

/**
 * A person's display name, wherever one is set (admin create and change over REST, tRPC and the CLI,
 * `npm run admin -- create-admin`, better-auth's sign-up): trimmed, 1 to 100 characters, without
 * control characters, nor those that reorder the text around them, as in a job's name: a name typed at
 * sign-up or at a single sign-on provider as '\u202Enimda' reads "admin" in everyone's queue. Names show in every queue row, job event and notification, to every user, and
 * the scheduler's snapshot repeats them once per job: a long one halted scheduling.
 */
export const personName = (field = "name") =>
  z
    .string({ error: (i) => (i.input === undefined ? `${field} is required` : `${field} must be a string`) })
    .refine((s) => !s.includes("\u0000"), `${field} must not contain NUL characters (\\u0000)`)
    .refine((s) => !hasLoneSurrogate(s), loneSurrogateMessage(field))
    .trim()
    .min(1, `${field} is required`)
    .max(LIMITS.personNameChars, `${field} is longer than ${LIMITS.personNameChars} characters`)
    .refine((s) => s.includes("\u0000") || !hasControlChars(s), controlCharsMessage(field))
    .refine((s) => !hasReorderingChars(s), reorderingCharsMessage(field));

/** What is wrong with `value` as a person's name, in one sentence naming the field; null when it is fine. */
export function personNameProblem(value: unknown, field = "name"): string | null {
  const r = personName(field).safeParse(value);
  return r.success ? null : r.error.issues.map((i) => i.message).join("; ");
}

/** POST /users: an account with a one-time set-password link. */
export const createUserInput = strictObject(
  {
    email,
    name: personName("name"),
    role: role.default("RESEARCHER"),
  },
  "a user",
);
export type CreateUserInput = z.input<typeof createUserInput>;

/** PATCH /users/{id}. */
export const updateUserInput = strictObject(
  {
    name: personName("name").optional(),
    role: role.optional(),
    disabled: z.boolean({ error: typeError("disabled", "disabled must be true or false") }).optional(),
  },
  "a user change",
).refine((v) => v.name !== undefined || v.role !== undefined || v.disabled !== undefined, {
  message: "name, role or disabled is required",
  path: ["role"],
});
export type UpdateUserInput = z.input<typeof updateUserInput>;

export const setPasswordInput = strictObject(
  {
    token: z.string().min(1, "token is required"),
    password: z.string().min(8, "password must be at least 8 characters").max(256, "password is longer than 256 characters"),
  },
  "a password change",
);

/** The protection cap: SPEC lets a contract protect at most 8 h. */
export const MAX_PROTECTION_CAP_SEC = 8 * 3600;

/** POST /clusters. */
export const createClusterInput = strictObject(
  {
    name: treeNodeName("name"),
    gpuType: text("gpuType").trim().min(1, "gpuType is required").max(40, "gpuType is longer than 40 characters"),
    maxMinRuntime: duration("maxMinRuntime")
      .refine((s) => s >= 60, "maxMinRuntime must be at least 1 minute")
      .refine((s) => s <= MAX_PROTECTION_CAP_SEC, "maxMinRuntime cannot exceed 8h (the longest protection a contract may ask)")
      .default(MAX_PROTECTION_CAP_SEC)
      .describe("The protection cap: the longest minRuntime a job on this cluster may ask for (default 8h)"),
  },
  "a cluster",
);
export type CreateClusterInput = z.input<typeof createClusterInput>;

/** A number field of the cluster policy, from `min` to `max` (whole when `int`); null restores the default. */
const policyNumber = (field: string, min: number, max: number, unit: string, int = false) => {
  let n = z.number({ error: typeError(field, `${field} must be a number (${unit}), or null for the default`) });
  if (int) n = n.int(`${field} must be a whole number of ${unit}`);
  return n
    .min(min, `${field} must be at least ${min} (${unit})`)
    .max(max, `${field} cannot exceed ${max.toLocaleString("en-US")} (${unit})`)
    .nullable()
    .optional();
};

/**
 * PATCH /clusters/{name}: the cluster's scheduling policy (admins). Each field is optional: what the
 * body leaves out stays as it is. The debug lane's settings (R5) take null to go back to the default.
 */
export const updateClusterPolicyInput = strictObject(
  {
    squattingUnprotectAfter: duration("squattingUnprotectAfter")
      .refine((s) => s >= 3600, "squattingUnprotectAfter must be at least 1 hour")
      .refine((s) => s <= 7 * 86_400, "squattingUnprotectAfter cannot exceed 7 days")
      .nullable()
      .optional()
      .describe(
        "A job flagged as likely squatting (its GPUs under 5% busy for 30 minutes) loses its protection after this long, e.g. 2h; null turns the policy off (the default)",
      ),
    debugReservePercent: policyNumber("debugReservePercent", 0, 10, "percent of the cluster's GPUs").describe(
      "The share of the cluster's GPUs that other work leaves free for debug-lane jobs, in percent (default 2; 0 keeps none)",
    ),
    debugMaxGpusPerUser: policyNumber("debugMaxGpusPerUser", 1, 1024, "GPUs", true).describe(
      "The GPUs one user may hold in the debug lane at once (default 8); beyond it their debug jobs wait as ordinary jobs",
    ),
    debugVictimMaxGpuHours: policyNumber("debugVictimMaxGpuHours", 0, 10_000, "GPU-hours").describe(
      "The most work a debug-lane job may make one preempted run lose: GPU-hours since its last checkpoint plus a quarter of the run's GPU-hours (default 4; 0: the lane preempts only unallocated work)",
    ),
  },
  "a cluster policy",
);
export type UpdateClusterPolicyInput = z.input<typeof updateClusterPolicyInput>;

/** POST /clusters/{name}/enrollment-tokens. */
export const issueEnrollmentTokenInput = strictObject(
  {
    expiresIn: duration("expiresIn")
      .refine((s) => s >= 60, "expiresIn must be at least 1 minute")
      .refine((s) => s <= 30 * 86_400, "expiresIn cannot exceed 30 days")
      .default(3600),
    nodeName: treeNodeName("nodeName").optional().describe("Bind the token to one host name (optional)"),
  },
  "an enrollment token request",
);
export type IssueEnrollmentTokenInput = z.input<typeof issueEnrollmentTokenInput>;

/** OIDC mapping: users signing in through OIDC whose e-mail domain or group claim matches get a role and budgets. */
export const oidcRuleInput = strictObject(
  {
    match: z.enum(["EMAIL_DOMAIN", "GROUP"], { error: typeError("match", "match must be EMAIL_DOMAIN or GROUP") }),
    value: text("value").trim().min(1, "value is required").max(200, "value is longer than 200 characters"),
    role,
    budgets: z.array(treePath("budgets")).max(50, "budgets holds more than 50 paths").default([]),
  },
  "an OIDC rule",
);
export type OidcRuleInput = z.input<typeof oidcRuleInput>;

// A filter is matched inside every row's text: bounded, as a name is (tRPC's bodies may be megabytes).
const auditFilter = (field: string) =>
  text(field)
    .trim()
    .min(1, `${field} must not be empty`)
    .max(LIMITS.keyChars, `${field} is longer than ${LIMITS.keyChars} characters`)
    .optional();

/** GET /audit filters. */
export const auditQueryInput = strictObject(
  {
    actor: auditFilter("actor").describe("e-mail (or part of it) of who acted"),
    action: auditFilter("action").describe("action, or its prefix such as 'user.'"),
    target: auditFilter("target").describe("target name or id (path, e-mail, cluster), or part of it"),
    since: z.iso.datetime({ offset: true, error: "since must be an ISO time such as 2026-12-01T10:00:00Z" }).optional(),
    until: z.iso.datetime({ offset: true, error: "until must be an ISO time such as 2026-12-01T10:00:00Z" }).optional(),
    limit: z
      .number({ error: typeError("limit", "limit must be a number") })
      .int()
      .min(1, "limit must be at least 1")
      .max(500, "limit cannot exceed 500")
      .default(100),
    before: z
      .string({ error: typeError("before", "before must be an entry's id") })
      .regex(/^[1-9][0-9]{0,17}$/, "before must be an entry's id, such as 1234")
      .optional()
      .describe("only entries older than this one (its id): the next page"),
  },
  "an audit log query",
);
export type AuditQueryInput = z.input<typeof auditQueryInput>;

/**
 * One page of the admin's user list: `q` is matched, as typed, inside names and e-mails (no wildcards:
 * '%' and '_' are themselves); `offset` is how many matching users come before the page.
 */
export const userPageInput = strictObject(
  {
    q: text("q").trim().max(LIMITS.keyChars, `q is longer than ${LIMITS.keyChars} characters`).default(""),
    limit: z
      .number({ error: typeError("limit", "limit must be a number") })
      .int("limit must be a whole number")
      .min(1, "limit must be at least 1")
      .max(100, "limit cannot exceed 100")
      .default(25),
    offset: z
      .number({ error: typeError("offset", "offset must be a number") })
      .int("offset must be a whole number")
      .min(0, "offset cannot be negative")
      .default(0),
  },
  "a user list query",
);
export type UserPageInput = z.input<typeof userPageInput>;
