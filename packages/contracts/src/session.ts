import { z } from "zod";
import { duration } from "./duration";
import { formatDuration } from "./format";
import { strictObject, text, typeError } from "./input";
import { jobIdInput } from "./job-id";
import { jobNameInput } from "./job-name";
import { LIMITS } from "./limits";

/**
 * Interactive sessions (issue 14, item 4): a job of kind INTERACTIVE whose process is a server the
 * agent launches in place of a command, a small shell server shipped with the agent or Jupyter, on a
 * port the agent picks. Its owner reaches it through the web app's proxy or over SSH; its working
 * folder is on the shared checkpoint root, so a session that is preempted or ended comes back with
 * its files. `tranche session`, the "Start a session" button and `POST /api/v1/sessions` share this.
 */
export const JOB_KINDS = ["BATCH", "INTERACTIVE"] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const SESSION_SERVERS = ["SHELL", "JUPYTER"] as const;
export type SessionServer = (typeof SESSION_SERVERS)[number];

const int = (n: number) => n.toLocaleString("en-US");

export const startSessionInput = strictObject(
  {
    cluster: text("cluster")
      .trim()
      .min(1, "cluster is required")
      .max(LIMITS.keyChars, `cluster is longer than ${int(LIMITS.keyChars)} characters`),
    budget: text("budget")
      .trim()
      .min(1, "budget is required")
      .max(LIMITS.keyChars, `budget is longer than ${int(LIMITS.keyChars)} characters`),
    gpus: z
      .number({ error: typeError("gpus", "The number of GPUs must be a number", "The number of GPUs is required") })
      .int("The number of GPUs must be a whole number")
      .min(1, "The number of GPUs must be at least 1")
      .max(LIMITS.jobGpus, `The number of GPUs must be at most ${int(LIMITS.jobGpus)}`)
      .default(1),
    minRuntime: duration("minRuntime", "2h", "Minimum runtime").describe(
      "Protected time after each start (e.g. 4h); capped by the cluster",
    ),
    maxRuntime: duration("maxRuntime", "2h", "Maximum runtime")
      .refine((v) => v > 0, "Maximum runtime must be positive")
      .nullish(),
    jupyter: z
      .boolean({ error: typeError("jupyter", "jupyter must be true or false") })
      .default(false)
      .describe("Jupyter instead of the shell server"),
    name: jobNameInput.optional(),
    idempotencyKey: text("idempotencyKey")
      .min(1, "idempotencyKey must not be empty")
      .max(LIMITS.keyChars, `idempotencyKey is longer than ${int(LIMITS.keyChars)} characters`)
      .optional(),
  },
  "a session request",
);
export type StartSessionInput = z.input<typeof startSessionInput>;
export type StartSession = z.output<typeof startSessionInput>;

/** `extend`: more protection for a running session, a new contract charged to its budget. */
export const extendSessionInput = strictObject(
  {
    id: jobIdInput.shape.id,
    by: duration("by").refine((v) => v > 0, "by must be positive: how much longer to protect the session"),
  },
  "an extension",
);
export type ExtendSessionInput = z.input<typeof extendSessionInput>;

/** Where a session is, for its owner (null fields until its agent reports them). */
export const sessionView = z.object({
  server: z.enum(SESSION_SERVERS),
  /** The node it runs on, and where its server listens there. */
  node: z.string().nullable(),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  /** Its working folder on the shared checkpoint root. */
  dir: z.string().nullable(),
  /** The web app's proxy path to it (owner only). */
  proxyPath: z.string(),
});
export type SessionView = z.infer<typeof sessionView>;

/** The proxy's route on the web app (REST, owner only): `/api/v1/sessions/<job id>/proxy/...`. */
export const sessionProxyPath = (jobId: number): string => `/api/v1/sessions/${jobId}/proxy/`;

/** "protected for 2 h 10 min more", "no longer protected": a running job's protection in plain words. */
export function protectionWords(protectedUntil: string | null, nowMs: number): string {
  if (protectedUntil === null) return "not protected: it may be preempted at any moment";
  const s = Math.floor((Date.parse(protectedUntil) - nowMs) / 1000);
  if (s <= 0) return "no longer protected: it may be preempted";
  return `protected for ${formatDuration(s < 60 ? s : Math.floor(s / 60) * 60)} more`;
}

/** How to reach a session over SSH: a tunnel to its port on its node, then the local address. */
export function sshInstructions(
  jobId: number,
  s: { host: string | null; port: number | null; dir: string | null; server: SessionServer },
): string[] {
  if (s.host === null || s.port === null) return [];
  const local = s.server === "JUPYTER" ? 8888 : 8022;
  const path = s.server === "JUPYTER" ? sessionProxyPath(jobId) : "/";
  return [
    `ssh -N -L ${local}:127.0.0.1:${s.port} ${s.host}`,
    `then open http://localhost:${local}${path} with the session's token, which is in ${s.dir ?? "its working folder"}/${sessionTokenFile(jobId)} (readable by you only)`,
  ];
}

/** The file in the working folder that holds a session's token (the proxy sends it; over SSH you do). */
export const sessionTokenFile = (jobId: number): string => `.tranche-session-${jobId}.token`;
