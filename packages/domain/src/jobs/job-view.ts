import { sessionProxyPath, type JobView } from "@tranche/contracts";
import { classifyJob, protectionEnd } from "@tranche/scheduler-core";
import type { PrismaClient } from "@tranche/db";
import { processPolicy } from "../runtime/policy";
import type { JobAccess } from "../auth/actor";
import { shownUserName } from "../user-name";
import type { ForecastFacts } from "./forecast-facts";

export const jobViewInclude = {
  cluster: { select: { name: true, squattingUnprotectAfterSec: true } },
  budget: { select: { path: true } },
  user: { select: { id: true, name: true, email: true } },
  dependencies: { select: { parentId: true, condition: true }, orderBy: { parentId: "asc" } },
  // The open run (an interactive session's server is reported per run).
  segments: {
    where: { endedAt: null },
    orderBy: { id: "desc" },
    take: 1,
    select: {
      sessionHost: true,
      sessionPort: true,
      sessionDir: true,
      placements: { select: { node: { select: { name: true } } } },
    },
  },
} as const;

export type JobRecord = NonNullable<Awaited<ReturnType<PrismaClient["job"]["findFirst"]>>>;
type JobRow = JobRecord & {
  cluster: { name: string; squattingUnprotectAfterSec?: number | null };
  budget: { path: string };
  user: { id: string; name: string; email: string };
  dependencies?: { parentId: number; condition: string }[];
  segments?: {
    sessionHost: string | null;
    sessionPort: number | null;
    sessionDir: string | null;
    placements: { node: { name: string } }[];
  }[];
};

/** Where an interactive session is (its open run's server, as its agent reported it); null for batch jobs. */
export function sessionOf(j: JobRow): JobView["session"] {
  if (j.kind !== "INTERACTIVE" || !j.sessionServer) return null;
  const run = j.segments?.[0];
  const live = run && run.sessionPort !== null && (j.state === "RUNNING" || j.state === "STOPPING");
  return {
    server: j.sessionServer,
    node: run?.placements[0]?.node.name ?? null,
    host: live ? run.sessionHost : null,
    port: live ? run.sessionPort : null,
    dir: run?.sessionDir ?? null,
    proxyPath: sessionProxyPath(j.id),
  };
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Times in a reason's details, stored as the scheduler's seconds. */
const TIME_FIELDS = ["earliestStart", "reservedFrom", "heldAt"] as const;

/**
 * A pending reason's details as the API shows them: its times as ISO 8601 (the scheduler stores Unix
 * seconds), so scripts and pages read one format; every other number as stored.
 */
export function reasonDetailsView(details: unknown): Record<string, unknown> | null {
  if (details === null || typeof details !== "object" || Array.isArray(details)) return null;
  const out: Record<string, unknown> = { ...(details as Record<string, unknown>) };
  for (const k of TIME_FIELDS) {
    const v = out[k];
    if (typeof v === "number" && Number.isFinite(v)) out[k] = new Date(v * 1000).toISOString();
  }
  return out;
}

const sec = (d: Date): number => Math.floor(d.getTime() / 1000);

/**
 * When the run's protection really ends: the stored end its START recorded, cut short by the cluster's
 * squatting policy for a job flagged as squatting. The cut is the core's protectionEnd on what the
 * scheduler reads too (the latest start and the contract's minRuntime), so the page says what the
 * scheduler acts on. A run whose stored end is its start was not protected at all (unallocated).
 */
export function effectiveProtectedUntil(j: {
  protectedUntil: Date | null;
  startedAt: Date | null;
  minRuntimeSec: number;
  squattingSince: Date | null;
  cluster: { squattingUnprotectAfterSec?: number | null };
}): Date | null {
  if (!j.protectedUntil || !j.startedAt || !j.squattingSince) return j.protectedUntil;
  if (j.protectedUntil.getTime() <= j.startedAt.getTime()) return j.protectedUntil;
  const end = protectionEnd(
    { startedAt: sec(j.startedAt), minRuntime: j.minRuntimeSec, squattingSince: sec(j.squattingSince) },
    true,
    { squattingUnprotectAfter: j.cluster.squattingUnprotectAfterSec ?? 0 },
  );
  return end === sec(j.protectedUntil) ? j.protectedUntil : new Date(end * 1000);
}

/** Why a job's start is not known when its forecast named a job that has ended since (plain words). */
export const FORECAST_NAMES_ENDED = "a job it was expected to follow has ended since the forecast was made";
/** Where a start the cycle's reservation gives comes from (plain words, read after the time). */
export const RESERVATION_START = "when the GPUs reserved for it free up";

/**
 * The start forecast shown for a job, only while it waits (a started job's old forecast is history).
 * A job holding the latest cycle's reservation is shown its start (the cycle makes it every few
 * seconds, the forecast once a minute); a stored forecast that names a job that has ended since is
 * out of date, and is shown as unknown, saying so, until the next refresh.
 */
export function startForecastView(
  j: {
    state: string;
    estimatedStartAt: Date | null;
    estimatedStartWhy: string | null;
    estimatedStartAfter: number[] | null;
    estimatedAt: Date | null;
  },
  facts: ForecastFacts,
): Pick<JobView, "estimatedStartAt" | "estimatedStartWhy" | "estimatedStartAfter" | "estimatedAt"> {
  const waiting = j.state === "PENDING" || j.state === "HELD";
  if (waiting && facts.reservation)
    return {
      estimatedStartAt: iso(facts.reservation.from),
      estimatedStartWhy: RESERVATION_START,
      estimatedStartAfter: [],
      estimatedAt: iso(facts.reservation.at),
    };
  if (!waiting || j.estimatedAt === null)
    return { estimatedStartAt: null, estimatedStartWhy: null, estimatedStartAfter: [], estimatedAt: null };
  if (facts.namesEnded)
    return {
      estimatedStartAt: null,
      estimatedStartWhy: FORECAST_NAMES_ENDED,
      estimatedStartAfter: [],
      estimatedAt: iso(j.estimatedAt),
    };
  return {
    estimatedStartAt: iso(j.estimatedStartAt),
    estimatedStartWhy: j.estimatedStartAt ? null : (j.estimatedStartWhy ?? null),
    estimatedStartAfter: j.estimatedStartAfter ?? [],
    estimatedAt: iso(j.estimatedAt),
  };
}

/**
 * The core's lane of a job (classifyJob), for a budget with an allocation on its cluster, with the
 * debug lane's bounds the worker uses (processPolicy: no cluster has its own).
 */
export function laneOf(job: { gpus: number; minRuntimeSec: number; maxRuntimeSec: number | null }): JobView["lane"] {
  return classifyJob(
    { gpus: job.gpus, minRuntime: job.minRuntimeSec, maxRuntime: job.maxRuntimeSec, gracePeriod: null },
    true,
    processPolicy(),
  ).lane;
}

/**
 * What `access` lets a reader see of a job's command, env and owner (see jobAccess); changes the view
 * in place. The owner's sign-in e-mail goes to those who may read the command (its owner, admins,
 * operators, its managers); to everyone else the owner is a display name, as job ids are sequential
 * and would otherwise hand any signed-in person every user's e-mail.
 */
export function maskJobView<V extends Pick<JobView, "command" | "env" | "secretEnvNames" | "user">>(v: V, access: JobAccess): V {
  if (access === "command") v.env = Object.fromEntries(Object.keys(v.env).map((k) => [k, "***"]));
  if (access === "none") {
    v.command = "(hidden)";
    v.env = {};
    v.secretEnvNames = [];
    v.user = { ...v.user, email: null };
  }
  return v;
}

/**
 * A job row as the API shows it to a reader with `access`; secretEnv values never leave. `facts`:
 * what its start forecast is shown with (forecastFacts).
 */
export function toJobView(j: JobRow, facts: ForecastFacts, access: JobAccess = "full"): JobView {
  const view: JobView = {
    id: j.id,
    name: j.name,
    cluster: j.cluster.name,
    budget: j.budget.path,
    user: { ...j.user, name: shownUserName(j.user.name) },
    gpus: j.gpus,
    minRuntime: j.minRuntimeSec,
    maxRuntime: j.maxRuntimeSec,
    resumable: j.resumable,
    requeue: j.requeuePolicy === "REQUEUE",
    priority: j.priority,
    gracePeriod: j.gracePeriodSec,
    command: j.command,
    env: { ...((j.env ?? {}) as Record<string, string>) },
    secretEnvNames: Object.keys((j.secretEnv ?? {}) as Record<string, string>).sort(),
    state: j.state,
    submittedAt: j.submittedAt.toISOString(),
    queuedAt: j.queuedAt.toISOString(),
    startedAt: iso(j.startedAt),
    protectedUntil: iso(effectiveProtectedUntil(j)),
    graceUntil: iso(j.graceUntil),
    finishedAt: iso(j.finishedAt),
    exitCode: j.exitCode,
    requeueCount: j.requeueCount,
    heldBy: j.heldBy,
    squattingSince: iso(j.squattingSince),
    lastCheckpointAt: iso(j.lastCheckpointAt),
    ...startForecastView(j, facts),
    reason:
      j.reasonCode && j.reasonSentence
        ? {
            code: j.reasonCode,
            sentence: j.reasonSentence,
            position: j.queuePosition,
            details: reasonDetailsView(j.reasonDetails),
          }
        : null,
    array:
      j.arrayJobId !== null && j.arrayIndex !== null ? { id: j.arrayJobId, index: j.arrayIndex, spec: j.arraySpec ?? "" } : null,
    after: (j.dependencies ?? []).map((d) => ({ jobId: d.parentId, condition: d.condition === "ANY" ? "ANY" : "OK" })),
    nodes: j.nodeList ?? [],
    excludeNodes: j.excludeNodes ?? [],
    retries: { max: j.maxRetries, used: j.retryCount },
    kind: j.kind,
    // Where a session listens is for those who may read the job whole (its owner, admins, its managers).
    session: access === "full" ? sessionOf(j) : null,
    lane: laneOf(j),
  };
  return maskJobView(view, access);
}
