import { z } from "zod";
import { hasLoneSurrogate, loneSurrogateMessage, text } from "./input";
import { INT32_MAX, LIMITS, formatBytes, utf8Bytes } from "./limits";

/**
 * The node agent protocol: HTTP + JSON under `/api/agent/v1`, served by the web app.
 *
 *   POST /api/agent/v1/enroll     one-time enrollment token -> node credential (stored hashed)
 *   POST /api/agent/v1/heartbeat  Authorization: Bearer <node credential>
 *                                 inventory, health, busy %, job statuses, exits, log chunks
 *                                 -> the jobs this node must run and the jobs it must stop
 *   POST /api/agent/v1/wait       long-poll: held up to `timeoutSec` (25 s) and answered at once when the
 *                                 node's assignments differ from the digest the agent sends (the worker
 *                                 NOTIFYs after a cycle starts or stops something there): heartbeat now
 *
 * The control plane is the source of truth: an agent learns its assignments only from heartbeat
 * responses (pull), so a worker killed in the middle of a cycle cannot half-tell an agent anything.
 * The long-poll only says "heartbeat now"; it carries no work, so missing it delays, never loses.
 * An agent speaks only for its own node and the run segments placed on it; a report about anything
 * else is refused with a specific error and changes nothing.
 *
 * Requests are bounded (LIMITS.agentRequestBytes, 413; log bytes per heartbeat, 400) and strings
 * refuse NUL, but objects are not strict: an unknown field is ignored, so agents and the control
 * plane can be upgraded one after the other (a newer agent's extra field must not make an older
 * control plane refuse every heartbeat and declare its nodes DOWN).
 */

export const AGENT_PROTOCOL_VERSION = 1;

/** A host name or an IP address, nothing that could bend a URL built from it (no scheme, path or user). */
export const SESSION_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]+)$/;

const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Run segment ids are 64-bit: carried as decimal strings. */
export const segmentIdSchema = z.string().regex(/^[1-9][0-9]{0,18}$/, "segmentId must be a positive integer in a string");

const id = (field: string) => z.number().int().positive().max(INT32_MAX, `${field} must be at most ${INT32_MAX}`);

export const gpuInfoSchema = z.object({
  index: z.number().int().min(0).max(255),
  uuid: text("uuid").max(128),
  name: text("name").max(128),
  memoryMiB: z.number().int().min(0).max(INT32_MAX),
  /** nvidia-smi utilization.gpu; null when unknown. */
  utilizationPercent: z.number().min(0).max(100).nullable(),
});
export type GpuInfo = z.infer<typeof gpuInfoSchema>;

export const agentHealthSchema = z.object({
  healthy: z.boolean(),
  /** Why it is unhealthy (nvidia-smi failed, a GPU missing, Xid errors...). */
  errors: z.array(text("errors").max(500)).max(50).default([]),
  driverVersion: text("driverVersion").max(64).nullable().optional(),
});
export type AgentHealth = z.infer<typeof agentHealthSchema>;

export const enrollRequestSchema = z.object({
  token: text("token").min(16, "enrollment token is too short").max(200),
  nodeName: z.string().regex(NODE_NAME, "nodeName must be 1-63 letters, digits, '.', '_' or '-'"),
  agentVersion: text("agentVersion").max(64),
  gpus: z.array(gpuInfoSchema).min(1, "a node needs at least one GPU").max(64),
});
export type EnrollRequest = z.infer<typeof enrollRequestSchema>;

export const enrollResponseSchema = z.object({
  nodeId: z.string(),
  nodeName: z.string(),
  cluster: z.string(),
  /** Shown once; the control plane keeps only its hash. */
  credential: z.string(),
  heartbeatIntervalSec: z.number().int().positive(),
});
export type EnrollResponse = z.infer<typeof enrollResponseSchema>;

export const JOB_REPORT_STATUSES = ["RUNNING", "EXITED"] as const;
/** The `signal` of a job whose process could not be started at all (its command or env, not a fault). */
export const LAUNCH_FAILED = "LAUNCH_FAILED";
export const LAUNCH_ERROR_MAX = 500;
/**
 * The `signal` of a job its agent stopped itself because it had no answer from the control plane for
 * the heartbeat timeout (fencing, R9): lost to the platform, not failed; requeued when it may be.
 */
export const FENCED = "FENCED";
/**
 * The `signal` of a job stopped because its agent was shut down with `--stop-jobs-on-exit` (the demo's
 * fake nodes stop with `npm start`): the platform's doing, so requeued (or LOST), never FAILED.
 */
export const AGENT_SHUTDOWN = "AGENT_SHUTDOWN";
/**
 * The `signal` of a job whose agent, restarted, found neither its process nor its exit status (the
 * wrapper writes one whenever the command ends): the host or the agent's container went down with it,
 * so lost to the platform, not failed; requeued when it may be.
 */
export const UNTRACKED = "UNKNOWN";

/** What the agent knows about one job process it runs (or ran) for a run segment. */
export const jobReportSchema = z.object({
  jobId: id("jobId"),
  segmentId: segmentIdSchema,
  status: z.enum(JOB_REPORT_STATUSES),
  pid: id("pid").nullable(),
  /** When the process was launched (ISO). */
  launchedAt: z.iso.datetime().nullable(),
  /** EXITED only: exit code (null when killed by a signal or unknown). */
  exitCode: z.number().int().min(-INT32_MAX).max(INT32_MAX).nullable(),
  /**
   * EXITED only: "SIGTERM", "SIGKILL"...; "UNKNOWN" (UNTRACKED) when the agent lost track of the process;
   * NEVER_STARTED when it was stopped before it launched; LAUNCH_FAILED when it could not be started.
   */
  signal: text("signal").max(32).nullable(),
  endedAt: z.iso.datetime().nullable(),
  /** LAUNCH_FAILED only: why the process could not be started (e.g. "spawn E2BIG"). */
  launchError: text("launchError").max(LAUNCH_ERROR_MAX).nullish(),
  /**
   * When the job last checkpointed (ISO): the modification time of `$TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint`,
   * which the job touches after each checkpoint; absent when the file does not exist.
   */
  checkpointAt: z.iso.datetime().nullish(),
  /** EXITED only: this heartbeat carries the last of the run's output (a log follower may stop). */
  logsDone: z.boolean().optional(),
  /** An interactive session's server: the host the control plane reaches it at, its port, its working folder. */
  session: z
    .object({
      // A host name or an IP address only: the web app's proxy builds its URL from it.
      host: z.string().max(253).regex(SESSION_HOST, "session.host must be a host name or an IP address"),
      port: z.number().int().min(1).max(65535),
      dir: text("session.dir").max(4096),
    })
    .optional(),
});
export type JobReport = z.infer<typeof jobReportSchema>;

export const logChunkSchema = z.object({
  jobId: id("jobId"),
  segmentId: segmentIdSchema,
  stream: z.enum(["stdout", "stderr"]),
  /**
   * A job's output may hold NUL bytes (binary output): they become U+FFFD, since Postgres text cannot hold
   * them. Half of a character (a lone surrogate) is refused, 400 naming the chunk: the agent decodes whole
   * UTF-8 characters and never sends one, and the database refuses it (a 500, the heartbeat lost).
   */
  text: z
    .string()
    .max(LIMITS.logChunkChars, `a log chunk holds at most ${LIMITS.logChunkChars.toLocaleString("en-US")} characters`)
    .refine((t) => !hasLoneSurrogate(t), loneSurrogateMessage("text"))
    .transform((t) => (t.includes("\u0000") ? t.replaceAll("\u0000", "\uFFFD") : t)),
});
export type LogChunk = z.infer<typeof logChunkSchema>;

export const heartbeatRequestSchema = z.object({
  /** The node this agent speaks for: must be the node its credential was issued to. */
  nodeName: z.string().regex(NODE_NAME),
  agentVersion: text("agentVersion").max(64),
  /**
   * An id the agent makes anew each time its process starts: a heartbeat with another one than the last is
   * an agent that restarted (a crash, an OOM kill), which its node's history says. Older agents send none.
   */
  agentStartId: text("agentStartId").min(1).max(64).optional(),
  /**
   * The agent's clock when it sent this heartbeat: the control plane reads the times the agent reports
   * (launches, exits, checkpoints) against it, so a host whose clock is off still says when things happened.
   * Older agents send none.
   */
  sentAt: z.iso.datetime().optional(),
  health: agentHealthSchema,
  gpus: z.array(gpuInfoSchema).max(64),
  /** Mean GPU utilization over the node's GPUs, 0..100; null when unknown. */
  busyPercent: z.number().min(0).max(100).nullable(),
  jobs: z.array(jobReportSchema).max(1000),
  logs: z
    .array(logChunkSchema)
    .max(LIMITS.logChunksPerBeat)
    .default([])
    .superRefine((logs, ctx) => {
      const bytes = logs.reduce((n, l) => n + utf8Bytes(l.text), 0);
      if (bytes > LIMITS.logBytesPerBeat)
        ctx.addIssue({
          code: "custom",
          message: `logs hold ${formatBytes(bytes)} in this heartbeat; at most ${formatBytes(LIMITS.logBytesPerBeat)} per heartbeat`,
        });
    }),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;
export type HeartbeatRequestInput = z.input<typeof heartbeatRequestSchema>;

/** A job process this node must run (once: the agent deduplicates by segmentId). */
export const runAssignmentSchema = z.object({
  jobId: z.number().int().positive(),
  segmentId: segmentIdSchema,
  name: z.string(),
  command: z.string(),
  env: z.record(z.string(), z.string()),
  /** GPU indexes on this node: CUDA_VISIBLE_DEVICES. */
  gpuIndexes: z.array(z.number().int().min(0)),
  /** Nodes of the whole gang, in order, and this node's rank in it. */
  nodes: z.array(z.string()),
  rank: z.number().int().min(0),
  /** Launch once the GPUs are free locally (preempted victims exiting), at the latest at startBy. */
  startBy: z.iso.datetime(),
  maxRuntimeSec: z.number().int().positive().nullable(),
  /** Grace between SIGTERM and SIGKILL when it is stopped. */
  gracePeriodSec: z.number().int().min(0),
  /** The Tranche user the job runs for (their id): the agent runs it as that user's uid (job isolation). */
  user: z.string().max(200).optional(),
  /** How many times the job was requeued before this run: TRANCHE_RESTART_COUNT. */
  restartCount: z.number().int().min(0).optional(),
  /**
   * An interactive session (job kind INTERACTIVE): the agent ignores `command` and launches this server
   * on a port it picks, in the user's session folder on the checkpoint root; TRANCHE_SESSION_TOKEN (in
   * env) is the token the server asks of every request.
   */
  session: z.object({ server: z.enum(["SHELL", "JUPYTER"]) }).optional(),
});
export type RunAssignment = z.infer<typeof runAssignmentSchema>;

export const STOP_REASONS = ["PREEMPT", "CANCEL", "KILL", "LOST", "ENDED", "UNKNOWN"] as const;

/** A job process this node must stop: SIGTERM now, SIGKILL at graceUntil. */
export const stopOrderSchema = z.object({
  jobId: z.number().int().positive(),
  segmentId: segmentIdSchema,
  reason: z.enum(STOP_REASONS),
  graceUntil: z.iso.datetime(),
});
export type StopOrder = z.infer<typeof stopOrderSchema>;

export const heartbeatResponseSchema = z.object({
  nodeId: z.string(),
  nodeName: z.string(),
  state: z.enum(["READY", "CORDONED", "DRAINING", "REPAIR", "DOWN"]),
  serverTime: z.iso.datetime(),
  heartbeatIntervalSec: z.number().int().positive(),
  run: z.array(runAssignmentSchema),
  stop: z.array(stopOrderSchema),
  /** Segments whose EXITED report is recorded: the agent may forget them. */
  acknowledged: z.array(segmentIdSchema),
  /** Digest of this node's run and stop assignments: what the agent sends to /wait. */
  assignments: z.string().max(128).optional(),
  /**
   * Fencing (R9): with no answer for `afterSec` the agent stops its jobs itself (SIGTERM, SIGKILL
   * `graceSec` later); the control plane declares the node DOWN and requeues them only after that.
   */
  fence: z.object({ afterSec: z.number().int().positive(), graceSec: z.number().int().min(0) }).optional(),
});
export type HeartbeatResponse = z.infer<typeof heartbeatResponseSchema>;

export const waitRequestSchema = z.object({
  nodeName: z.string().regex(NODE_NAME),
  /** The `assignments` digest of the agent's latest heartbeat response. */
  assignments: z.string().max(128),
  /** How long the server may hold the request (s). */
  timeoutSec: z.number().int().min(1).max(60).default(25),
});
export type WaitRequestInput = z.input<typeof waitRequestSchema>;

export const waitResponseSchema = z.object({
  /** true: the node has new work (or stops): heartbeat now. false: nothing changed before the timeout. */
  changed: z.boolean(),
});
export type WaitResponse = z.infer<typeof waitResponseSchema>;

export const AGENT_ERROR_CODES = [
  "BAD_REQUEST",
  "UNAUTHENTICATED",
  "INVALID_ENROLLMENT_TOKEN",
  "NODE_IN_OTHER_CLUSTER",
  "NODE_ALREADY_ENROLLED",
  "NODE_RETIRED",
  "TOO_LARGE",
  "WRONG_NODE",
  "FOREIGN_JOB",
  "NOT_FOUND",
  "TOO_MANY_REQUESTS",
  "UNAVAILABLE",
  "INTERNAL",
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

export const agentErrorSchema = z.object({
  error: z.object({
    code: z.enum(AGENT_ERROR_CODES),
    message: z.string(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type AgentError = z.infer<typeof agentErrorSchema>;
