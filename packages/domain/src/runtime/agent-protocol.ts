import { DATABASE_RETRY_AFTER_SEC, DATABASE_UNAVAILABLE_SENTENCE, isDatabaseUnavailable, type PrismaClient } from "@tranche/db";
import {
  LIMITS,
  enrollRequestSchema,
  fieldIssues,
  formatBytes,
  heartbeatRequestSchema,
  type AgentError,
  type AgentErrorCode,
  type EnrollResponse,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type RunAssignment,
  type StopOrder,
  type WaitResponse,
  waitRequestSchema,
} from "@tranche/contracts";
import { defaultPolicy, gracePeriodFor, nodeStateAfterReport, type PolicyConfig } from "@tranche/scheduler-core";
import type { z } from "zod";
import { enterAgentRequest, inNodeTurn } from "./agent-in-flight";
import { enterAnonymousAgentRequest, isKnownCredential, noteCredential } from "./agent-anonymous";
import { assignmentsDigest, type AgentWakeups } from "./agent-wait";
import { hashSecret, newNodeCredential } from "./credentials";
import { enrollRetired } from "./enroll-retired";
import { agentEnrolledAgainText } from "./agent-history-words";
import { noteAgentRestart } from "./agent-restarts";
import { closeRun } from "./job-lifecycle";
import { storeJobLogs } from "./job-logs";
import { agentClock } from "./agent-clock";
import { settleLateExit } from "./late-exit";
import { applySquattingRule, recordCheckpoints, recordSessions } from "./job-reports";
import { chargeRunEnds } from "./charge";
import { lockJobs, lockNodes } from "./lock-order";
import { processPolicy } from "./policy";

/**
 * The agent protocol's use-cases (see packages/contracts/src/agent.ts). Route handlers in the web app
 * (and the test gateway) only pass the bearer credential and the JSON body here.
 *
 * Invariants: an agent speaks for exactly one node (the one its credential was issued to) and only
 * about run segments placed on that node. A report that breaks this is refused as a whole with a
 * specific error and nothing is written — not even the heartbeat time.
 */

export interface AgentReply<T> {
  status: number;
  body: T | AgentError;
}

/** HTTP headers of an agent reply: never cached; a 503 (the database away) or a 429 says when to try again. */
export function agentReplyHeaders(reply: { status: number }): Record<string, string> {
  const retryAfter = reply.status === 503 ? DATABASE_RETRY_AFTER_SEC : reply.status === 429 ? 1 : null;
  return { "cache-control": "no-store", ...(retryAfter !== null ? { "retry-after": String(retryAfter) } : {}) };
}

export const SCHEDULER_CHANNEL = "tranche_jobs";
/** Heartbeat period agents are told to use (seconds). */
export const heartbeatIntervalSec = (): number => Math.max(1, Number(process.env.TRANCHE_AGENT_HEARTBEAT_SEC ?? 5) || 5);
/**
 * What an agent is told about fencing: stop its jobs after the heartbeat timeout without an answer and
 * SIGKILL them 2 s before the fence grace ends (its 1 s tick and the kill itself fit in the rest), so
 * they are gone before the worker's timeout + grace declares the node DOWN and requeues them.
 */
export function fenceFor(policy: Pick<PolicyConfig, "heartbeatTimeout" | "fenceGrace">): { afterSec: number; graceSec: number } {
  return { afterSec: Math.max(1, Math.floor(policy.heartbeatTimeout)), graceSec: Math.max(0, Math.floor(policy.fenceGrace) - 2) };
}
/** The fence of this process's policy (processPolicy: the worker's TRANCHE_POLICY, when the web app shares it). */
function currentFence(): { afterSec: number; graceSec: number } {
  return fenceFor(processPolicy());
}
/** Seconds of silence after which the worker declares a node DOWN (R9: heartbeat timeout plus fence grace). */
export function nodeDownAfterSec(): number {
  const policy = processPolicy();
  return policy.heartbeatTimeout + policy.fenceGrace;
}
/** The stop grace for processes the control plane does not know (or no longer runs). */
const ORPHAN_GRACE_SEC = 10;

const fail = (
  status: number,
  code: AgentErrorCode,
  message: string,
  issues?: { path: string; message: string }[],
): AgentReply<never> => ({
  status,
  body: { error: { code, message, ...(issues ? { issues } : {}) } },
});

function badRequest(err: z.ZodError): AgentReply<never> {
  const issues = fieldIssues(err);
  return fail(
    400,
    "BAD_REQUEST",
    `Malformed report: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ")}`,
    issues,
  );
}

/** POST /api/agent/v1/enroll: a one-time enrollment token buys a node credential. */
export async function enrollAgent(prisma: PrismaClient, raw: unknown): Promise<AgentReply<EnrollResponse>> {
  const parsed = enrollRequestSchema.safeParse(raw);
  if (!parsed.success) return badRequest(parsed.error);
  const req = parsed.data;
  const token = await prisma.enrollmentToken.findUnique({
    where: { tokenHash: hashSecret(req.token) },
    include: { cluster: true },
  });
  if (!token || token.usedAt || token.expiresAt.getTime() <= Date.now())
    return fail(
      401,
      "INVALID_ENROLLMENT_TOKEN",
      "The enrollment token is unknown, already used or expired; ask an operator for a new one.",
    );
  if (token.nodeName && token.nodeName !== req.nodeName)
    return fail(
      401,
      "INVALID_ENROLLMENT_TOKEN",
      `This enrollment token was issued for node ${token.nodeName}, not ${req.nodeName}.`,
    );
  const existing = await prisma.node.findUnique({ where: { name: req.nodeName } });
  if (existing && existing.clusterId !== token.clusterId)
    return fail(
      409,
      "NODE_IN_OTHER_CLUSTER",
      `Node ${req.nodeName} belongs to another cluster than the token's (${token.cluster.name}).`,
    );
  // Re-enrolling replaces the node's credential: only a token issued for that node may do it. An
  // unbound token enrolls new hosts only, so whoever holds one cannot take over an existing node (nor a
  // retired one's name and history).
  if (existing && !token.nodeName)
    return existing.state === "RETIRED" ? retiredName(req.nodeName) : alreadyEnrolled(req.nodeName);

  const credential = newNodeCredential();
  const node = await prisma
    .$transaction(async (tx) => {
      const used = await tx.enrollmentToken.updateMany({
        where: { id: token.id, usedAt: null },
        data: { usedAt: new Date(), nodeName: req.nodeName },
      });
      if (used.count !== 1) return null;
      // The enrolling agent's first heartbeat brings its start id: its line is the enrollment's, not a restart's.
      const data = {
        agentCredentialHash: hashSecret(credential),
        agentVersion: req.agentVersion,
        agentStartId: null,
        gpuInventory: req.gpus,
      };
      if (existing?.state === "RETIRED") return enrollRetired(tx, existing.id, data, req.agentVersion);
      if (existing) {
        // The node's history says when its agent came back this way, not only its state changes. A node
        // no agent has spoken for yet (seeded, or made before its host) is enrolled, not enrolled again.
        if (existing.agentVersion !== null)
          await tx.nodeEvent.create({
            data: {
              nodeId: existing.id,
              fromState: existing.state,
              toState: existing.state,
              reason: agentEnrolledAgainText(req.agentVersion),
              automatic: true,
            },
          });
        return tx.node.update({ where: { id: existing.id }, data });
      }
      // A new host starts DOWN: its first healthy heartbeat makes it READY.
      return tx.node.create({
        data: {
          ...data,
          clusterId: token.clusterId,
          name: req.nodeName,
          gpuCount: req.gpus.length,
          state: "DOWN",
          stateReason: "enrolled",
        },
      });
    })
    // Another request enrolled this name in between (the node's name is unique): the token stays unused.
    .catch((e: unknown) => {
      if ((e as { code?: string }).code === "P2002") return "taken" as const;
      throw e;
    });
  if (node === "taken") return alreadyEnrolled(req.nodeName);
  if (!node) return fail(401, "INVALID_ENROLLMENT_TOKEN", "The enrollment token was used by another request at the same time.");
  return {
    status: 200,
    body: {
      nodeId: node.id,
      nodeName: node.name,
      cluster: token.cluster.name,
      credential,
      heartbeatIntervalSec: heartbeatIntervalSec(),
    },
  };
}

const retiredRefusal = (nodeName: string): AgentReply<never> =>
  fail(
    401,
    "NODE_RETIRED",
    `Node ${nodeName} is retired: an operator took it out of service, and its agent is refused. To bring this host back as ${nodeName}, enroll it again with a token issued for node ${nodeName}.`,
  );

const retiredName = (nodeName: string): AgentReply<never> =>
  fail(
    409,
    "NODE_RETIRED",
    `Node ${nodeName} is retired and this enrollment token was not issued for it; nothing was changed. To bring it back, ask an operator for a token issued for node ${nodeName}, or enroll this host under another name.`,
  );

const alreadyEnrolled = (nodeName: string): AgentReply<never> =>
  fail(
    409,
    "NODE_ALREADY_ENROLLED",
    `Node ${nodeName} is already enrolled and this enrollment token was not issued for it; nothing was changed. To replace its credential, ask an operator for a token issued for node ${nodeName}.`,
  );

interface SegmentRow {
  id: bigint;
  jobId: number;
  startedAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  charged: boolean;
  gpus: number;
  nodeIds: string[];
  jobState: string;
  resumable: boolean;
  requeuePolicy: string;
}

/** POST /api/agent/v1/heartbeat. */
export async function handleHeartbeat(
  prisma: PrismaClient,
  credential: string | null,
  raw: unknown,
  now: Date = new Date(),
): Promise<AgentReply<HeartbeatResponse>> {
  const who = await credentialNode(prisma, credential);
  return "refused" in who ? who.refused : heartbeatOf(prisma, who.node, raw, now);
}

type NodeRow = NonNullable<Awaited<ReturnType<PrismaClient["node"]["findUnique"]>>>;
/** A node whose agent may speak: never a retired one. */
type CredentialNode = Omit<NodeRow, "state"> & { state: Exclude<NodeRow["state"], "RETIRED"> };

/** The node a bearer credential was issued to, or the 401 that says what is wrong with it. */
async function credentialNode(
  prisma: PrismaClient,
  credential: string | null,
  /** hashSecret(credential), when the caller has it already. */
  hash = credential ? hashSecret(credential) : null,
): Promise<{ node: CredentialNode } | { refused: AgentReply<never> }> {
  if (!credential || !hash)
    return {
      refused: fail(401, "UNAUTHENTICATED", "Missing node credential: send 'Authorization: Bearer <node credential>'."),
    };
  const node = await prisma.node.findUnique({ where: { agentCredentialHash: hash } });
  noteCredential(hash, node !== null && node.state !== "RETIRED");
  if (!node) return { refused: fail(401, "UNAUTHENTICATED", "Unknown or revoked node credential: enroll this agent again.") };
  // A retired node keeps its credential's hash only so that its agent hears why it is refused.
  if (node.state === "RETIRED") return { refused: retiredRefusal(node.name) };
  return { node: { ...node, state: node.state } };
}

/** A heartbeat from a node whose credential has been checked. */
async function heartbeatOf(
  prisma: PrismaClient,
  node: CredentialNode,
  raw: unknown,
  now: Date,
): Promise<AgentReply<HeartbeatResponse>> {
  const parsed = heartbeatRequestSchema.safeParse(raw);
  if (!parsed.success) return badRequest(parsed.error);
  const hb: HeartbeatRequest = parsed.data;
  const onOurClock = agentClock(hb.sentAt, now);
  if (hb.nodeName !== node.name)
    return fail(
      403,
      "WRONG_NODE",
      `This credential belongs to node ${node.name}; it cannot report for node ${hb.nodeName}. Nothing was recorded.`,
    );

  // Every segment the report mentions must be placed on this node (or be unknown: then it is stopped).
  const mentioned = [...new Set([...hb.jobs.map((j) => j.segmentId), ...hb.logs.map((l) => l.segmentId)])];
  const rows = mentioned.length
    ? await prisma.$queryRaw<SegmentRow[]>`
        SELECT s.id, s."jobId", s."startedAt", s."endedAt", s."endReason"::text AS "endReason", s.charged, s.gpus,
               ARRAY(SELECT p."nodeId" FROM segment_placement p WHERE p."segmentId" = s.id) AS "nodeIds",
               j.state::text AS "jobState", j.resumable, j."requeuePolicy"::text AS "requeuePolicy"
        FROM run_segment s JOIN job j ON j.id = s."jobId" WHERE s.id = ANY(${mentioned}::bigint[])`
    : [];
  const segs = new Map(rows.map((r) => [String(r.id), r]));
  const foreign: string[] = [];
  for (const r of [...hb.jobs, ...hb.logs]) {
    const s = segs.get(r.segmentId);
    if (!s) continue;
    if (s.jobId !== r.jobId) foreign.push(`segment ${r.segmentId} belongs to job ${s.jobId}, not job ${r.jobId}`);
    else if (!s.nodeIds.includes(node.id))
      foreign.push(`job ${r.jobId} (segment ${r.segmentId}) is not placed on node ${node.name}`);
  }
  if (foreign.length > 0)
    return fail(
      403,
      "FOREIGN_JOB",
      `Node ${node.name} may only report its own jobs: ${[...new Set(foreign)].join("; ")}. Nothing was recorded.`,
    );

  const stop: StopOrder[] = [];
  const acknowledged: string[] = [];
  let wake = false;
  const graceIso = new Date(now.getTime() + ORPHAN_GRACE_SEC * 1000).toISOString();

  await prisma.$transaction(
    async (tx) => {
      // The plan applier's lock order (lock-order.ts): this node, then every job this report may change
      // or write beside (the ones it mentions, and those placed here whose squatting flag it may set), in
      // id order, before any segment or ledger row.
      await lockNodes(tx, { nodeIds: [node.id] });
      // Read again under the lock: two heartbeats of one restarted agent must not both count the restart.
      const agentBefore = await tx.node.findUniqueOrThrow({
        where: { id: node.id },
        select: { agentVersion: true, agentStartId: true },
      });
      const placedHere = await tx.$queryRaw<{ jobId: number }[]>`
        SELECT s."jobId" FROM segment_placement p JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL
        WHERE p."nodeId" = ${node.id}`;
      await lockJobs(tx, [...placedHere.map((r) => r.jobId), ...rows.map((r) => r.jobId)]);
      // Node: inventory, health, and the transitions a report decides (R8 repair done, back from DOWN).
      let state = node.state;
      // R8/R9: the core's rule for what a report does to the node; the sentences are worded here.
      const to = nodeStateAfterReport(
        {
          state: node.state,
          heardFrom: node.lastHeartbeatAt !== null,
          manualDrain: node.drainIsManual,
        },
        hb.health.healthy,
      );
      const transition: { to: typeof state; reason: string } | null =
        to === null
          ? null
          : {
              to,
              reason:
                node.state === "REPAIR"
                  ? "Healthy report after an automatic repair: READY."
                  : node.lastHeartbeatAt === null
                    ? `First healthy heartbeat${node.stateReason === "enrolled" ? " after enrollment" : ""}: READY.`
                    : to === "READY"
                      ? "Agent is back and reports healthy: READY."
                      : `Agent is back but reports unhealthy (${hb.health.errors.join("; ") || "no detail"}): REPAIR.`,
            };
      if (transition) {
        state = transition.to;
        wake = true;
        await tx.nodeEvent.create({
          data: {
            nodeId: node.id,
            at: now,
            fromState: node.state,
            toState: transition.to,
            reason: transition.reason,
            automatic: true,
          },
        });
      }
      // Another start of the agent (a crash, an OOM kill, an upgrade): a line in the node's history.
      await noteAgentRestart(tx, node.id, agentBefore, hb, state, now);
      await tx.node.update({
        where: { id: node.id },
        data: {
          lastHeartbeatAt: now,
          health: hb.health.healthy ? "HEALTHY" : "UNHEALTHY",
          // Since when: a node drained for an unhealthy report says how long it has been healthy again.
          ...(node.health !== (hb.health.healthy ? "HEALTHY" : "UNHEALTHY") ? { healthChangedAt: now } : {}),
          healthDetails: { errors: hb.health.errors, driverVersion: hb.health.driverVersion ?? null },
          gpuInventory: hb.gpus,
          busyPercent: hb.busyPercent,
          agentVersion: hb.agentVersion,
          agentStartId: hb.agentStartId ?? null,
          ...(transition
            ? {
                state: transition.to,
                stateReason: transition.reason,
                stateChangedAt: now,
                ...(transition.to === "READY" ? { drainIsManual: false } : {}),
              }
            : {}),
        },
      });
      if (node.health === "HEALTHY" && !hb.health.healthy) wake = true;

      // Exits and statuses. The runs that end are charged up to their ends first, all in one statement
      // (charge.ts): charged one by one in the order reported, two agents' heartbeats took two budgets'
      // ledger rows in opposite orders and deadlocked.
      const closing = (r: (typeof hb.jobs)[number]) => {
        const s = segs.get(r.segmentId);
        if (r.status !== "EXITED" || !s || s.endedAt !== null || (s.jobState !== "RUNNING" && s.jobState !== "STOPPING"))
          return null;
        // The agent's clock is not trusted: read on ours (agent-clock.ts), a run still ends neither in the
        // future nor before it started.
        const reported = r.endedAt ? onOurClock(r.endedAt) : now.getTime();
        return { s, endedAt: new Date(Math.max(s.startedAt.getTime(), Math.min(reported, now.getTime()))) };
      };
      await chargeRunEnds(
        tx,
        hb.jobs.flatMap((r) => {
          const c = closing(r);
          return c?.s.charged ? [{ segmentId: c.s.id, until: c.endedAt }] : [];
        }),
      );
      for (const r of hb.jobs) {
        const s = segs.get(r.segmentId);
        if (r.status === "EXITED") {
          acknowledged.push(r.segmentId);
          const c = closing(r);
          if (!c) {
            if (s && (await settleLateExit(tx, r, s, node, onOurClock, now))) wake = true;
            continue;
          }
          const { s: run, endedAt } = c;
          const closed = await closeRun(
            tx,
            {
              jobId: run.jobId,
              segmentId: run.id,
              jobState: run.jobState,
              intent: run.endReason,
              resumable: run.resumable,
              requeuePolicy: run.requeuePolicy,
              charged: run.charged,
              gpus: run.gpus,
            },
            {
              endedAt,
              cause: "exit",
              exitCode: r.exitCode,
              signal: r.signal,
              launchError: r.launchError ?? null,
              sentence: `On node ${node.name}:`,
            },
            { kind: "AGENT", id: node.id },
          );
          if (closed) {
            run.endedAt = endedAt;
            wake = true;
          }
        } else if (!s) {
          stop.push({ jobId: r.jobId, segmentId: r.segmentId, reason: "UNKNOWN", graceUntil: graceIso });
        } else if (
          r.launchedAt &&
          s.endedAt === null &&
          s.jobState === "RUNNING" &&
          onOurClock(r.launchedAt) < s.startedAt.getTime() - 999
        ) {
          // A start that waited for preempted victims (startBy in the future) launched as soon as they
          // left: its run, charge and protection begin at the real launch (never before its cycle).
          const launched = new Date(Math.min(onOurClock(r.launchedAt), now.getTime()));
          const moved = await tx.$executeRaw`
            UPDATE run_segment s SET "startedAt" = GREATEST(${launched}::timestamptz, c.at),
                   "chargedUntil" = GREATEST(${launched}::timestamptz, c.at),
                   "protectedUntil" = CASE WHEN s.charged THEN GREATEST(${launched}::timestamptz, c.at) + make_interval(secs => j."minRuntimeSec") END
            FROM job j, scheduling_cycle c
            WHERE s.id = ${s.id} AND j.id = s."jobId" AND c.id = s."startCycleId" AND s."endedAt" IS NULL
              AND s."startedAt" > GREATEST(${launched}::timestamptz, c.at) AND s."chargedUntil" <= s."startedAt"`;
          if (moved > 0) {
            await tx.$executeRaw`
              UPDATE job j SET "startedAt" = s."startedAt", "protectedUntil" = s."protectedUntil" FROM run_segment s
              WHERE s.id = ${s.id} AND j.id = s."jobId"`;
          }
        } else if (s.endedAt !== null || (s.jobState !== "RUNNING" && s.jobState !== "STOPPING")) {
          // The run ended elsewhere (another node of its gang exited, or the node was declared DOWN).
          stop.push({ jobId: r.jobId, segmentId: r.segmentId, reason: "ENDED", graceUntil: graceIso });
        }
      }

      await storeJobLogs(
        tx,
        hb.logs.filter((l) => segs.has(l.segmentId)),
        node.name,
        now,
      );

      // SPEC §4 likely squatting: the core's 30-minute rule over this node's readings of each charged run's GPUs.
      const util = new Map(hb.gpus.filter((g) => g.utilizationPercent !== null).map((g) => [g.index, g.utilizationPercent!]));
      if (util.size > 0) await applySquattingRule(tx, node.id, util, now);
      await recordCheckpoints(tx, hb.jobs, segs, now, onOurClock);
      await recordSessions(tx, hb.jobs, segs);
      // Exits still reported: their output is still being uploaded, until one says it is done.
      const exits = hb.jobs.filter((r) => r.status === "EXITED" && segs.has(r.segmentId));
      if (exits.length > 0) {
        const done = exits.filter((r) => r.logsDone).map((r) => r.segmentId);
        await tx.$executeRaw`
          UPDATE run_segment SET "lastExitReportAt" = ${now},
                 "logsCompleteAt" = CASE WHEN id = ANY(${done}::bigint[]) THEN COALESCE("logsCompleteAt", ${now}) ELSE "logsCompleteAt" END
          WHERE id = ANY(${exits.map((r) => r.segmentId)}::bigint[])`;
      }
      node.state = state;
    },
    { timeout: 30_000, maxWait: 10_000 },
  );
  if (wake) await prisma.$executeRaw`SELECT pg_notify(${SCHEDULER_CHANNEL}, ${node.clusterId})`.catch(() => undefined);

  const { run, stop: assigned } = await assignmentsFor(prisma, node.id, now);
  const stopIds = new Set(stop.map((s) => s.segmentId));
  return {
    status: 200,
    body: {
      nodeId: node.id,
      nodeName: node.name,
      state: node.state,
      serverTime: now.toISOString(),
      heartbeatIntervalSec: heartbeatIntervalSec(),
      run,
      stop: [...stop, ...assigned.filter((s) => !stopIds.has(s.segmentId))],
      acknowledged,
      assignments: assignmentsDigest(run, assigned),
      fence: currentFence(),
    },
  };
}

/**
 * POST /api/agent/v1/wait: the agent's long-poll. Answers `changed: true` at once when the node's
 * assignments in the database differ from the digest the agent holds, or as soon as the worker
 * NOTIFYs `tranche_agents` for this node (after committing a cycle that starts or stops something
 * there); `changed: false` after `timeoutSec`. Either way the agent then heartbeats or polls again:
 * the work itself always comes from a heartbeat response.
 */
export async function handleAgentWait(
  prisma: PrismaClient,
  wakeups: AgentWakeups,
  credential: string | null,
  raw: unknown,
  signal?: AbortSignal,
): Promise<AgentReply<WaitResponse>> {
  const who = await credentialNode(prisma, credential);
  return "refused" in who ? who.refused : waitOf(prisma, wakeups, who.node, raw, signal);
}

/** A long-poll from a node whose credential has been checked. */
async function waitOf(
  prisma: PrismaClient,
  wakeups: AgentWakeups,
  node: { id: string; name: string },
  raw: unknown,
  signal?: AbortSignal,
): Promise<AgentReply<WaitResponse>> {
  const parsed = waitRequestSchema.safeParse(raw);
  if (!parsed.success) return badRequest(parsed.error);
  if (parsed.data.nodeName !== node.name)
    return fail(
      403,
      "WRONG_NODE",
      `This credential belongs to node ${node.name}; it cannot wait for node ${parsed.data.nodeName}.`,
    );
  await wakeups.ready();
  // Listen first, then read: a cycle committing in between still wakes this request.
  const w = wakeups.register(node.id, parsed.data.timeoutSec * 1000, signal);
  const { run, stop } = await assignmentsFor(prisma, node.id, new Date()).catch((e: unknown) => {
    w.cancel();
    throw e;
  });
  if (assignmentsDigest(run, stop) !== parsed.data.assignments) {
    w.cancel();
    return { status: 200, body: { changed: true } };
  }
  return { status: 200, body: { changed: await w.woken } };
}

interface AssignmentRow {
  segmentId: bigint;
  jobId: number;
  userId: string;
  name: string;
  command: string;
  env: Record<string, unknown>;
  state: string;
  endReason: string | null;
  graceUntil: Date | null;
  startedAt: Date;
  maxRuntimeSec: number | null;
  gracePeriodSec: number | null;
  requeueCount: number;
  charged: boolean;
  gpuIndexes: number[];
  gang: string[];
  kind: string;
  sessionServer: "SHELL" | "JUPYTER" | null;
  /** R12: the job's old copy (an older open segment) has not exited yet: this run may not launch. */
  waitsForOld: boolean;
}

/** What a node must run and stop now: its open run segments, read from the database (the truth). */
export async function assignmentsFor(
  prisma: PrismaClient,
  nodeId: string,
  now: Date,
): Promise<{ run: RunAssignment[]; stop: StopOrder[] }> {
  const rows = await prisma.$queryRaw<AssignmentRow[]>`
    SELECT s.id AS "segmentId", j.id AS "jobId", j."userId", j.name, j.command, j.env || j."secretEnv" AS env, j.state::text AS state, s."endReason"::text AS "endReason",
           j."graceUntil", s."startedAt", j."maxRuntimeSec", j."gracePeriodSec", j."requeueCount", s.charged, p."gpuIndexes",
           ARRAY(SELECT n.name FROM segment_placement q JOIN node n ON n.id = q."nodeId" WHERE q."segmentId" = s.id ORDER BY n.name) AS gang,
           j.kind::text AS kind, j."sessionServer"::text AS "sessionServer",
           EXISTS (SELECT 1 FROM run_segment o WHERE o."jobId" = s."jobId" AND o."endedAt" IS NULL AND o.id < s.id) AS "waitsForOld"
    FROM segment_placement p
    JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL
    JOIN job j ON j.id = s."jobId"
    WHERE p."nodeId" = ${nodeId} AND j.state IN ('RUNNING', 'STOPPING')`;
  const run: RunAssignment[] = [];
  const stop: StopOrder[] = [];
  const me = await prisma.node.findUnique({ where: { id: nodeId }, select: { name: true } });
  for (const r of rows) {
    const segmentId = String(r.segmentId);
    // A stopping job, or a moved job's old copy (R12: its segment carries the stop while the job runs on).
    if (r.state === "STOPPING" || r.endReason !== null) {
      stop.push({
        jobId: r.jobId,
        segmentId,
        reason: r.endReason === "PREEMPT" ? "PREEMPT" : r.endReason === "KILL" ? "KILL" : "CANCEL",
        graceUntil: (r.graceUntil ?? now).toISOString(),
      });
      continue;
    }
    // R12: a moved job launches on its new node only once its old copy has exited (it never runs twice).
    if (r.waitsForOld) continue;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.env ?? {})) env[k] = String(v);
    run.push({
      jobId: r.jobId,
      segmentId,
      name: r.name,
      command: r.command,
      env,
      gpuIndexes: r.gpuIndexes,
      nodes: r.gang,
      rank: Math.max(0, r.gang.indexOf(me?.name ?? "")),
      startBy: r.startedAt.toISOString(),
      maxRuntimeSec: r.maxRuntimeSec,
      gracePeriodSec: gracePeriodFor({ gracePeriod: r.gracePeriodSec }, r.charged, defaultPolicy),
      user: r.userId,
      restartCount: r.requeueCount,
      ...(r.kind === "INTERACTIVE" && r.sessionServer ? { session: { server: r.sessionServer } } : {}),
    });
  }
  return { run, stop };
}

const busyNode = (nodeName: string): AgentReply<never> =>
  fail(
    429,
    "TOO_MANY_REQUESTS",
    `Node ${nodeName} already has ${LIMITS.agentRequestsInFlightPerNode} requests in progress, the most one node may have at once (its agent sends a heartbeat and a long-poll); nothing was recorded, try again in a moment.`,
  );

const busyAddress = (): AgentReply<never> =>
  fail(
    429,
    "TOO_MANY_REQUESTS",
    `This address already has ${LIMITS.agentAnonymousRequestsInFlightPerAddress} agent requests in progress from no enrolled node (enrollments, or credentials not known yet), the most one address may have at once; nothing was recorded, try again in a moment.`,
  );

/** The request of an enrolling agent (`node` null) or of a node whose credential holds: its body, then its route. */
async function answer(
  prisma: PrismaClient,
  req: { route: string; readBody: () => Promise<string | null> },
  node: CredentialNode | null,
  opts: { wakeups?: AgentWakeups; signal?: AbortSignal },
): Promise<AgentReply<unknown>> {
  const limit = agentRequestLimit(req.route);
  const body = await req.readBody();
  if (body === null || Buffer.byteLength(body, "utf8") > limit)
    return fail(
      413,
      "TOO_LARGE",
      `The request body is larger than ${formatBytes(limit)}, the most ${req.route === "enroll" ? "an enrollment" : "an agent"} request may be; nothing was recorded.`,
    );
  let raw: unknown;
  try {
    raw = body ? JSON.parse(body) : undefined;
  } catch {
    return fail(400, "BAD_REQUEST", "The request body is not valid JSON.");
  }
  if (!node) return await enrollAgent(prisma, raw);
  if (req.route === "wait" && opts.wakeups) return await waitOf(prisma, opts.wakeups, node, raw, opts.signal);
  // The time is the report's turn's: a report waiting behind the node's previous one is taken as of now.
  return await inNodeTurn(node.id, () => heartbeatOf(prisma, node, raw, new Date()));
}

/** The most bytes a request to this agent route may have (its reader stops keeping the body past it). */
export function agentRequestLimit(route: string): number {
  return route === "enroll" ? LIMITS.agentEnrollBytes : LIMITS.agentRequestBytes;
}

/** Transport-neutral dispatcher used by the web route handlers and the test gateway. */
export async function handleAgentRequest(
  prisma: PrismaClient,
  /**
   * `readBody` reads the body up to agentRequestLimit(route): null when it is larger (not read whole).
   * It is called only once the node credential holds, so a caller without one is refused unread.
   */
  req: {
    method: string;
    route: string;
    authorization: string | null;
    readBody: () => Promise<string | null>;
    /**
     * The client's address (null: not known, all such one client): its requests for which no enrolled
     * node is known are bounded before their lookup. Left out only by the test gateway, whose callers
     * are a test's own agents.
     */
    client?: string | null;
  },
  /** The long-poll (`wait`) needs this process's LISTEN connection; `signal` ends it when the agent hangs up. */
  opts: { wakeups?: AgentWakeups; signal?: AbortSignal } = {},
): Promise<AgentReply<unknown>> {
  if (req.method !== "POST") return fail(405 as number, "BAD_REQUEST", `Use POST for /api/agent/v1/${req.route}.`);
  const known = req.route === "enroll" || req.route === "heartbeat" || (req.route === "wait" && opts.wakeups);
  if (!known)
    return fail(
      404,
      "NOT_FOUND",
      `No agent endpoint /api/agent/v1/${req.route} (endpoints: enroll, heartbeat${opts.wakeups ? ", wait" : ""}).`,
    );
  const bearer = req.authorization?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? null;
  // Hashed once: the bound below and the credential's lookup both read it, on every heartbeat.
  const hash = bearer ? hashSecret(bearer) : null;
  // A request that costs a lookup and comes from no enrolled node, bounded per address before it.
  let leaveAnonymous = (): void => undefined;
  if (req.client !== undefined && (req.route === "enroll" || (hash && !(await isKnownCredential(prisma, hash))))) {
    const entered = enterAnonymousAgentRequest(req.client);
    if (!entered) return busyAddress();
    leaveAnonymous = entered;
  }
  try {
    // The credential before the body (enrollment's token is in its body, at most 64 KiB): whoever has
    // none cannot make this process hold an 8 MiB report while they take their time sending it.
    const who = req.route === "enroll" ? null : await credentialNode(prisma, bearer, hash);
    if (who && "refused" in who) return who.refused;
    // Then the node's requests in flight, still unread: one credential may not take the agents'
    // database connections (nor hold many 8 MiB bodies) from every other node.
    let leave = (): void => undefined;
    if (who) {
      const entered = enterAgentRequest(who.node.id);
      if (!entered) return busyNode(who.node.name);
      leave = entered;
    }
    try {
      return await answer(prisma, req, who?.node ?? null, opts);
    } finally {
      leave();
    }
  } catch (e) {
    if (isDatabaseUnavailable(e)) {
      console.error("agent protocol", req.route, "the database cannot be reached:", e instanceof Error ? e.message : e);
      return fail(503, "UNAVAILABLE", `${DATABASE_UNAVAILABLE_SENTENCE} The agent retries; its jobs keep running.`);
    }
    // The database's own words stay in the server's log: a caller (perhaps not a real agent) learns nothing from them.
    console.error("agent protocol", req.route, e);
    return fail(500, "INTERNAL", "The control plane could not handle this request (its log says why); the agent retries.");
  } finally {
    leaveAnonymous();
  }
}
