import type { JobView } from "@tranche/contracts";
import { classifyJob, defaultPolicy } from "@tranche/scheduler-core";
import type { PrismaClient } from "@tranche/db";
import type { JobAccess } from "../auth/actor";

export const jobViewInclude = {
  cluster: { select: { name: true } },
  budget: { select: { path: true } },
  user: { select: { id: true, name: true, email: true } },
} as const;

export type JobRecord = NonNullable<Awaited<ReturnType<PrismaClient["job"]["findFirst"]>>>;
type JobRow = JobRecord & {
  cluster: { name: string };
  budget: { path: string };
  user: { id: string; name: string; email: string };
};

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Times in a reason's details, stored as the scheduler's seconds. */
const TIME_FIELDS = ["earliestStart", "reservedFrom"] as const;

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

/** The core's lane of a job (classifyJob), for a budget with an allocation on its cluster. */
export function laneOf(job: { gpus: number; minRuntimeSec: number; maxRuntimeSec: number | null }): JobView["lane"] {
  return classifyJob(
    { gpus: job.gpus, minRuntime: job.minRuntimeSec, maxRuntime: job.maxRuntimeSec, gracePeriod: null },
    true,
    defaultPolicy,
  ).lane;
}

/** What `access` lets a reader see of a job's command and env (see jobAccess); changes the view in place. */
export function maskJobView<V extends Pick<JobView, "command" | "env" | "secretEnvNames">>(v: V, access: JobAccess): V {
  if (access === "command") v.env = Object.fromEntries(Object.keys(v.env).map((k) => [k, "***"]));
  if (access === "none") {
    v.command = "(hidden)";
    v.env = {};
    v.secretEnvNames = [];
  }
  return v;
}

/** A job row as the API shows it to a reader with `access`; secretEnv values never leave. */
export function toJobView(j: JobRow, access: JobAccess = "full"): JobView {
  const view: JobView = {
    id: j.id,
    name: j.name,
    cluster: j.cluster.name,
    budget: j.budget.path,
    user: j.user,
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
    protectedUntil: iso(j.protectedUntil),
    graceUntil: iso(j.graceUntil),
    finishedAt: iso(j.finishedAt),
    exitCode: j.exitCode,
    requeueCount: j.requeueCount,
    heldBy: j.heldBy,
    squattingSince: iso(j.squattingSince),
    lastCheckpointAt: iso(j.lastCheckpointAt),
    reason:
      j.reasonCode && j.reasonSentence
        ? {
            code: j.reasonCode,
            sentence: j.reasonSentence,
            position: j.queuePosition,
            details: reasonDetailsView(j.reasonDetails),
          }
        : null,
    lane: laneOf(j),
  };
  return maskJobView(view, access);
}
