import type { PrismaClient } from "@tranche/db";
import type { GpuCell, NodeAction, NodeEventView, NodeState, NodeView } from "@tranche/contracts";
import { formatDuration, nodeStateText } from "@tranche/contracts/format";
import { nodeDownAfterSec } from "../runtime/agent-protocol";
import { requireRole, type Actor } from "../auth/actor";
import { clusterIdNamed } from "../cluster-named";
import { conflict, notFound } from "../errors";
import { shownUserName } from "../user-name";
import { IN_SERVICE } from "./in-service";
import { changeNode } from "./node-change";

export type { GpuCell, NodeView } from "@tranche/contracts";

/** Which nodes a list holds: retired ones too, or only those in these states. */
export interface NodeListOptions {
  retired?: boolean;
  states?: NodeState[];
}

/**
 * When a node drained for its own unhealthy report turned healthy again, while it is still draining (it
 * stays DRAINING until its jobs have left, R8); null otherwise. A drain an operator made keeps its reason.
 */
function healthyAgainAt(n: {
  state: string;
  health: string;
  drainIsManual: boolean;
  stateChangedAt: Date;
  healthChangedAt: Date | null;
}): string | null {
  if (n.state !== "DRAINING" || n.drainIsManual || n.health !== "HEALTHY" || !n.healthChangedAt) return null;
  return n.healthChangedAt.getTime() >= n.stateChangedAt.getTime() ? n.healthChangedAt.toISOString() : null;
}

/**
 * Every node of a cluster (or all) with which job and budget holds each GPU. Retired nodes only when
 * asked for (`retired`), or by name: a retired node's page and history stay readable.
 */
export async function listNodes(
  prisma: PrismaClient,
  clusterName?: string,
  nodeName?: string,
  opts: NodeListOptions = {},
): Promise<NodeView[]> {
  const nodes = await prisma.node.findMany({
    where: {
      ...(clusterName ? { cluster: { name: clusterName } } : {}),
      // States named are taken as they are: "retired" among them lists the retired nodes.
      ...(nodeName ? { name: nodeName } : opts.states ? {} : opts.retired ? {} : IN_SERVICE),
      ...(opts.states ? { state: { in: opts.states } } : {}),
    },
    include: {
      cluster: { select: { name: true } },
      drainPlannedBy: { select: { name: true } },
      placements: {
        where: { segment: { endedAt: null } },
        include: {
          segment: {
            select: {
              charged: true,
              protectedUntil: true,
              job: { select: { id: true, name: true, squattingSince: true, user: { select: { name: true } } } },
              budget: { select: { path: true } },
            },
          },
        },
      },
    },
  });
  const natural = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });
  nodes.sort((a, b) => natural(a.cluster.name, b.cluster.name) || natural(a.name, b.name));
  return nodes.map((n) => {
    const gpus: GpuCell[] = Array.from({ length: n.gpuCount }, (_, i) => ({
      index: i,
      jobId: null,
      jobName: null,
      budget: null,
      user: null,
      charged: null,
      protectedUntil: null,
      squattingSince: null,
    }));
    for (const p of n.placements) {
      for (const i of p.gpuIndexes) {
        const cell = gpus[i];
        if (!cell) continue;
        cell.jobId = p.segment.job.id;
        cell.jobName = p.segment.job.name;
        cell.user = shownUserName(p.segment.job.user.name);
        cell.budget = p.segment.budget.path;
        cell.charged = p.segment.charged;
        cell.protectedUntil = p.segment.protectedUntil?.toISOString() ?? null;
        cell.squattingSince = p.segment.job.squattingSince?.toISOString() ?? null;
      }
    }
    return {
      id: n.id,
      name: n.name,
      cluster: n.cluster.name,
      state: n.state,
      health: n.health,
      gpuCount: n.gpuCount,
      busyPercent: n.busyPercent,
      lastHeartbeatAt: n.lastHeartbeatAt?.toISOString() ?? null,
      agentVersion: n.agentVersion,
      hasCredential: n.agentCredentialHash !== null,
      stateReason: n.stateReason,
      stateChangedAt: n.stateChangedAt.toISOString(),
      drainIsManual: n.drainIsManual,
      drainAt: n.drainAt?.toISOString() ?? null,
      drainReason: n.drainReason,
      drainPlannedBy: n.drainPlannedBy ? shownUserName(n.drainPlannedBy.name) : null,
      healthyAgainAt: healthyAgainAt(n),
      healthDetails: n.healthDetails,
      gpus,
      usedGpus: gpus.filter((g) => g.jobId !== null).length,
    };
  });
}

/** Operators (and admins) change nodes' states; checked before anything is read, by the routes too. */
export function requireNodeAction(actor: Actor, action: NodeAction): void {
  requireRole(actor, ["OPERATOR"], `${TRANSITIONS[action].verb} nodes`);
}

/** The fields of a node without a planned drain. */
export const NO_DRAIN_PLAN = { drainAt: null, drainReason: null, drainPlannedById: null } as const;

/** "a, b or c" */
const orList = (words: string[]): string =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}`;

const TRANSITIONS: Record<NodeAction, { from: NodeState[]; to: NodeState; verb: string; done: string }> = {
  cordon: { from: ["READY"], to: "CORDONED", verb: "cordon", done: "cordoned" },
  drain: { from: ["READY", "CORDONED"], to: "DRAINING", verb: "drain", done: "drained" },
  uncordon: { from: ["CORDONED", "DRAINING"], to: "READY", verb: "uncordon", done: "made ready this way" },
  markRepaired: {
    from: ["REPAIR", "DOWN", "DRAINING", "CORDONED"],
    to: "READY",
    verb: "mark repaired",
    done: "made ready this way",
  },
};

/**
 * Operator actions on a node (SPEC §2, R8): cordon -> CORDONED; drain -> DRAINING with
 * drainIsManual (the worker preempts its jobs as their contracts allow, then moves it to REPAIR);
 * uncordon and mark repaired -> READY. Conditional on the state read; writes a NodeEvent and an
 * AuditLog row in the same transaction.
 */
export async function applyNodeAction(
  prisma: PrismaClient,
  actor: Actor,
  /** The node by id (the nodes page) or by name (REST and the CLI; names are unique across clusters). */
  which: { id: string } | { name: string },
  action: NodeAction,
  reason?: string,
): Promise<NodeView> {
  requireNodeAction(actor, action);
  const node = await prisma.node.findUnique({ where: which });
  if (!node) throw notFound(`There is no node '${"id" in which ? which.id : which.name}'`);
  const nodeId = node.id;
  const t = TRANSITIONS[action];
  if (!t.from.includes(node.state))
    throw conflict(
      `Cannot ${t.verb} ${node.name}: it is ${nodeStateText(node.state)}, and only ${orList(t.from.map(nodeStateText))} nodes can be ${t.done}`,
    );
  const now = new Date();
  // A node whose agent is silent went back DOWN at the next cycle: the answer "ready: new work may start
  // there" was untrue, and its history gained two lines that undo each other.
  const silentSec = node.lastHeartbeatAt ? (now.getTime() - node.lastHeartbeatAt.getTime()) / 1000 : 0;
  if (action === "markRepaired" && silentSec > nodeDownAfterSec())
    throw conflict(
      `Cannot mark ${node.name} repaired: its agent has not been heard from for ${formatDuration(silentSec)}, so it would go down again at once. Start its agent first${node.state === "DOWN" ? " (a down node turns ready by itself at its agent's first healthy report)" : ""}.`,
    );
  // No reason given is stored as none (the event's column takes ""): who made the change is its actor,
  // shown beside it, never written into the reason as one ("cordon by Omar Operator").
  const why = reason?.trim() || null;
  await prisma.$transaction(async (tx) => {
    await changeNode(tx, node, {
      to: t.to,
      at: now,
      reason: why,
      actorId: actor.id,
      data: {
        state: t.to,
        stateReason: why,
        stateChangedAt: now,
        drainIsManual: action === "drain" ? true : t.to === "READY" ? false : node.drainIsManual,
        // Draining now, or back in service by hand: a planned drain is done with or cancelled.
        ...(t.to === "READY" || t.to === "DRAINING" ? NO_DRAIN_PLAN : {}),
        ...(action === "markRepaired"
          ? { health: "HEALTHY" as const, ...(node.health !== "HEALTHY" ? { healthChangedAt: now } : {}) }
          : {}),
      },
    });
    await tx.auditLog.create({
      data: {
        actorId: actor.id,
        action: `node.${action}`,
        targetType: "node",
        targetId: nodeId,
        at: now,
        details: { node: node.name, from: node.state, to: t.to, reason: why },
      },
    });
  });
  await prisma.$executeRawUnsafe(`SELECT pg_notify('tranche_jobs', $1)`, node.clusterId).catch(() => undefined);
  return (await listNodes(prisma, undefined, node.name))[0]!;
}

export interface RepairQueueRow {
  id: string;
  name: string;
  cluster: string;
  state: NodeState;
  since: string;
  reason: string | null;
  manual: boolean;
  /** As NodeView's: when a node drained for an unhealthy report turned healthy again. */
  healthyAgainAt: string | null;
}

/**
 * Nodes waiting for a human or on their way there: REPAIR, DOWN, DRAINING, oldest first; of one
 * cluster when named (the nodes page shows one cluster at a time).
 */
export async function getRepairQueue(prisma: PrismaClient, clusterName?: string): Promise<RepairQueueRow[]> {
  const rows = await prisma.node.findMany({
    where: { state: { in: ["REPAIR", "DOWN", "DRAINING"] }, ...(clusterName ? { cluster: { name: clusterName } } : {}) },
    include: { cluster: { select: { name: true } } },
    orderBy: { stateChangedAt: "asc" },
  });
  return rows.map((n) => ({
    id: n.id,
    name: n.name,
    cluster: n.cluster.name,
    state: n.state,
    since: n.stateChangedAt.toISOString(),
    reason: n.stateReason,
    manual: n.drainIsManual,
    healthyAgainAt: healthyAgainAt(n),
  }));
}

export async function getNodeEvents(prisma: PrismaClient, nodeId: string, limit = 30): Promise<NodeEventView[]> {
  const rows = await prisma.nodeEvent.findMany({ where: { nodeId }, orderBy: [{ at: "desc" }, { id: "desc" }], take: limit });
  // Who made a change: an operator's name, or null for the scheduler's and the agent's own changes.
  const ids = [...new Set(rows.flatMap((e) => (e.actorId ? [e.actorId] : [])))];
  const names = new Map(
    ids.length === 0
      ? []
      : (await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } })).map((u) => [u.id, u.name]),
  );
  return rows.map((e) => ({
    id: e.id.toString(),
    at: e.at.toISOString(),
    from: e.fromState,
    to: e.toState,
    reason: givenReason(e.reason, e.actorId ? (names.get(e.actorId) ?? null) : null),
    automatic: e.automatic,
    by: e.actorId ? (names.get(e.actorId) ?? null) : null,
  }));
}

/** Older changes made without a reason stored one naming the operator ("cordon by Omar Operator"). */
const VERBS = Object.values(TRANSITIONS).map((t) => t.verb);

/** A change's reason as given, null when none was: "", or an older stand-in naming the operator shown as `by`. */
function givenReason(reason: string, by: string | null): string | null {
  if (reason === "" || (by !== null && VERBS.some((v) => reason === `${v} by ${by}`))) return null;
  return reason;
}

/** listNodes for the REST route and the CLI: a cluster that does not exist is an error, not an empty list. */
export async function listNodesOf(prisma: PrismaClient, clusterName?: string, opts: NodeListOptions = {}): Promise<NodeView[]> {
  if (clusterName !== undefined) await clusterIdNamed(prisma, clusterName);
  return listNodes(prisma, clusterName, undefined, opts);
}

/** One node by name with its latest state changes (REST GET /nodes/{name}, `tranche node show`). */
export async function getNodeNamed(prisma: PrismaClient, name: string): Promise<{ node: NodeView; events: NodeEventView[] }> {
  const [node] = await listNodes(prisma, undefined, name);
  if (!node) throw notFound(`There is no node '${name}'`);
  return { node, events: await getNodeEvents(prisma, node.id) };
}
