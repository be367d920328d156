import { LIMITS } from "./limits";
import { z } from "zod";
import { strictObject, text } from "./input";
import type { NodeDrainPlanView } from "./node-drain-plan";

export const NODE_ACTIONS = ["cordon", "drain", "uncordon", "markRepaired"] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

const reason = text("reason").trim().max(500, "reason is longer than 500 characters").optional();

export const nodeActionInput = strictObject(
  {
    nodeId: text("nodeId").min(1, "nodeId is required").max(200),
    reason,
  },
  "a node action",
);

/** REST POST /nodes/{name}/{action}: the node is in the path; the body, when sent, says why. */
export const nodeActionBody = strictObject({ reason }, "a node action");

/**
 * The words of the node states, as `tranche nodes --state` and REST `GET /nodes?state=` take them (and as
 * people say them: "repair", not REPAIR).
 */
export const NODE_STATE_WORDS: Record<string, NodeState> = {
  ready: "READY",
  cordoned: "CORDONED",
  draining: "DRAINING",
  repair: "REPAIR",
  down: "DOWN",
  retired: "RETIRED",
};

/** "draining,down" -> the states, or the error naming the words it takes ("got 'drainin'"). */
export function parseNodeStateWords(raw: string): { states: NodeState[] } | { error: string } {
  const states = new Set<NodeState>();
  for (const word of raw.split(",").map((w) => w.trim().toLowerCase())) {
    const state = Object.hasOwn(NODE_STATE_WORDS, word) ? NODE_STATE_WORDS[word] : undefined;
    if (!state) return { error: `takes ${Object.keys(NODE_STATE_WORDS).join(", ")} (comma-separated), got '${word || raw}'` };
    states.add(state);
  }
  return { states: [...states] };
}

/**
 * REST GET /nodes?cluster=&state=&retired=1: one cluster's nodes, or every cluster's; only those in the
 * states named (as `tranche nodes --state`); retired ones only when asked (or named as a state).
 */
export const nodeListQuery = strictObject(
  {
    cluster: text("cluster")
      .min(1, "cluster is empty")
      .max(LIMITS.keyChars, `cluster is longer than ${LIMITS.keyChars} characters`)
      .optional(),
    retired: z
      .enum(["0", "1"], { error: "retired takes 1 (list retired nodes too) or 0" })
      .optional()
      .transform((v) => v === "1"),
    state: text("state")
      .max(200, "state is longer than 200 characters")
      .transform((raw, ctx) => {
        const r = parseNodeStateWords(raw);
        if ("states" in r) return r.states;
        ctx.addIssue({ code: "custom", message: `state ${r.error}` });
        return z.NEVER;
      })
      .optional(),
  },
  "the node list's query",
);

/** What retiring a node did (POST /nodes/{name}/retire). */
export interface RetiredNodeView {
  node: string;
  cluster: string;
  /** Its state before: a retired node's history keeps where it was left. */
  from: NodeState;
  /** Waiting jobs (pending or held) whose node list names it: a warning, the retirement is not refused. */
  waitingNamingIt: number;
  /** Of them, those left no node in service to run on: they can never start, and their owners were told. */
  strandedJobs: number;
}

/** The sentence the web app and the CLI say after a retirement. */
export function retiredNodeSentence(r: RetiredNodeView): string {
  return `Retired ${r.node}: its agent is refused, and it is left out of scheduling, capacity and the node lists (\`tranche nodes --all\` shows it). Its history and its jobs' placements are kept. A token issued for ${r.node} brings it back.${waitingText(r)}`;
}

/** The warning about the waiting jobs that named the node, if any. */
function waitingText(r: RetiredNodeView): string {
  const n = r.waitingNamingIt;
  const k = r.strandedJobs;
  if (n === 0) return "";
  const naming =
    n === 1 ? `1 waiting job names ${r.node} in its node list` : `${n} waiting jobs name ${r.node} in their node lists`;
  if (k === 0) return ` Warning: ${naming}; ${n === 1 ? "it" : "they"} may still run on the other nodes listed.`;
  const owners =
    k === 1 ? "its owner changes that list (the owner was told)" : "their owners change those lists (the owners were told)";
  if (k === n) return ` Warning: ${naming}; ${n === 1 ? "it" : "none of them"} can start now unless ${owners}.`;
  return ` Warning: ${naming}; ${k} of them can never start now unless ${owners}, the others may still run on the other nodes listed.`;
}

/**
 * The REST path word of each action (POST /nodes/{name}/{word}): "repaired" reads better in a URL and
 * on the command line than the tRPC procedure's name.
 */
export const NODE_ACTION_WORDS: Record<string, NodeAction> = {
  cordon: "cordon",
  drain: "drain",
  uncordon: "uncordon",
  repaired: "markRepaired",
};

/** RETIRED: taken out of service for good; kept for its history, left out of scheduling and the default lists. */
export type NodeState = "READY" | "CORDONED" | "DRAINING" | "REPAIR" | "DOWN" | "RETIRED";

/** One GPU of a node and the job that holds it (the nodes page's grid, REST GET /nodes). */
export interface GpuCell {
  index: number;
  jobId: number | null;
  jobName: string | null;
  budget: string | null;
  user: string | null;
  charged: boolean | null;
  protectedUntil: string | null;
  /** When the job on this GPU was flagged as likely squatting; null when it is not. */
  squattingSince: string | null;
}

/** A node as the nodes page, REST GET /nodes and `tranche nodes` show it. */
/** drainAt, drainReason, drainPlannedBy: its planned drain (node-drain-plan.ts), null fields when none. */
export interface NodeView extends NodeDrainPlanView {
  id: string;
  name: string;
  cluster: string;
  state: NodeState;
  health: "HEALTHY" | "UNHEALTHY";
  gpuCount: number;
  busyPercent: number | null;
  lastHeartbeatAt: string | null;
  agentVersion: string | null;
  /** Whether an agent credential is issued to it (false once revoked, until the host enrolls again). */
  hasCredential: boolean;
  stateReason: string | null;
  stateChangedAt: string;
  drainIsManual: boolean;
  /**
   * When a node drained for its own unhealthy report turned healthy again, while it is still draining (it
   * returns to service once its jobs have left, R8); null otherwise. nodeReasonWords says it.
   */
  healthyAgainAt: string | null;
  healthDetails: unknown;
  gpus: GpuCell[];
  usedGpus: number;
}

/** One change of a node's state, newest first in a node's history. */
export interface NodeEventView {
  id: string;
  at: string;
  from: NodeState | null;
  to: NodeState;
  reason: string | null;
  /** Whether it counts as automatic (R8: a drain that needed no human step), not who made it. */
  automatic: boolean;
  /** The operator who made the change, null for the scheduler's and the agent's own. */
  by: string | null;
}

/** What revoking a node's credential did (POST /nodes/{name}/revoke-credential). */
export interface RevokedNodeView {
  node: string;
  cluster: string;
  revoked: true;
  cordoned: boolean;
  runningJobs: number;
}

/**
 * The sentence the web app and the CLI say after a revocation: the running jobs are stopped by their
 * agent at its heartbeat timeout, so the operator hears of them before, not from their owners.
 */
export function revokedNodeSentence(r: RevokedNodeView): string {
  const cordoned = r.cordoned ? "; it is cordoned, so nothing new starts there" : "";
  const jobs =
    r.runningJobs === 0
      ? "No job runs there."
      : `Its agent is refused from its next heartbeat and stops the ${r.runningJobs === 1 ? "job" : `${r.runningJobs} jobs`} running there at its heartbeat timeout: resumable jobs are requeued, the others end lost.`;
  return `Revoked the credential of ${r.node}${cordoned}. ${jobs} It rejoins only with a new enrollment token.`;
}

/** The longest run of agent words a node's reason carries (a failing nvidia-smi may print a page). */
const MAX_HEALTH_CHARS = 300;

/**
 * What an agent said was wrong, from a node's stored `healthDetails` ({ errors: string[] }), as one
 * phrase for its state reason; null when it gave no words (or the column holds something else).
 */
export function healthErrors(details: unknown): string | null {
  const errors = (details as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return null;
  const text = errors
    .filter((e): e is string => typeof e === "string" && e.trim() !== "")
    .map((e) => e.trim())
    .join("; ");
  if (text === "") return null;
  return text.length > MAX_HEALTH_CHARS ? `${text.slice(0, MAX_HEALTH_CHARS - 1)}…` : text;
}
