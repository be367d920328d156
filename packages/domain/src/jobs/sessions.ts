import { randomBytes } from "node:crypto";
import type { PrismaClient } from "@tranche/db";
import { formatDuration, type JobEventKind, type JobView, type StartSession } from "@tranche/contracts";
import { extendProtection, minRuntimeCap, defaultPolicy } from "@tranche/scheduler-core";
import type { Actor } from "../auth/actor";
import { badInput, conflict, forbidden, notFound } from "../errors";
import { getJob } from "./queries";
import { submitSessionJob } from "./submit-job";

/**
 * Interactive sessions (issue 14, item 4). A session is a job of kind INTERACTIVE: the same contract,
 * checks and scheduling as any job (so its protection, preemption, charging and squatting flag are the
 * core's), with a server in place of a command. It is always requeued after a preemption: its files
 * live on the shared checkpoint root, so it comes back with them on new GPUs.
 */

/** The secret every request to the session's server must carry (the proxy adds it); never shown. */
export const SESSION_TOKEN_VAR = "TRANCHE_SESSION_TOKEN";

export async function startSession(prisma: PrismaClient, actor: Actor, input: StartSession): Promise<JobView> {
  const server = input.jupyter ? "JUPYTER" : "SHELL";
  return submitSessionJob(
    prisma,
    actor,
    {
      cluster: input.cluster,
      budget: input.budget,
      gpus: input.gpus,
      minRuntime: input.minRuntime,
      maxRuntime: input.maxRuntime ?? null,
      resumable: true,
      requeue: true,
      priority: 0,
      gracePeriod: null,
      command: server === "JUPYTER" ? "interactive session: Jupyter" : "interactive session: shell server",
      env: {},
      secretEnv: { [SESSION_TOKEN_VAR]: randomBytes(24).toString("base64url") },
      name: input.name ?? (server === "JUPYTER" ? "jupyter" : "session"),
      after: [],
      retries: 0,
      ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
    },
    { kind: "INTERACTIVE", sessionServer: server },
  );
}

const sec = (d: Date): number => Math.floor(d.getTime() / 1000);

/**
 * "extend": more protection for the owner's running session, a new contract (its minRuntime grows)
 * charged to its budget like the rest of the run. The rule (from when, how far, the cap) is the core's
 * extendProtection; this checks who and what, and writes the job, its open run and an EXTENDED event
 * together, only if the run is still the one read.
 */
export async function extendSession(prisma: PrismaClient, actor: Actor, id: number, by: number): Promise<JobView> {
  const job = await prisma.job.findUnique({
    where: { id },
    select: {
      userId: true,
      kind: true,
      state: true,
      startedAt: true,
      minRuntimeSec: true,
      maxRuntimeSec: true,
      cluster: { select: { maxMinRuntimeSec: true } },
      budget: { select: { path: true } },
    },
  });
  if (!job) throw notFound(`There is no job ${id}`);
  if (job.userId !== actor.id) throw forbidden(`Job ${id} is not yours: only its owner may extend it`);
  if (job.kind !== "INTERACTIVE") throw badInput(`Job ${id} is a batch job: only sessions can be extended`, "id");
  const open = await prisma.runSegment.findFirst({
    where: { jobId: id, endedAt: null },
    orderBy: { id: "desc" },
    select: { id: true, charged: true, startedAt: true },
  });
  if (job.state !== "RUNNING" || !open || !job.startedAt)
    throw conflict(`Session ${id} is ${job.state.toLowerCase()}: only a running session can be extended`);
  const now = new Date();
  const cap = minRuntimeCap({ maxMinRuntime: job.cluster.maxMinRuntimeSec }, defaultPolicy);
  const r = extendProtection(
    { startedAt: sec(open.startedAt), minRuntime: job.minRuntimeSec, maxRuntime: job.maxRuntimeSec, charged: open.charged },
    by,
    sec(now),
    cap,
  );
  if (!r.ok) throw badInput(`Session ${id} cannot be extended by ${formatDuration(by)}: ${r.sentence}`, "by");
  const protectedUntil = new Date(r.protectedUntil * 1000);
  await prisma.$transaction(async (tx) => {
    const changed = await tx.job.updateMany({
      where: { id, state: "RUNNING", minRuntimeSec: job.minRuntimeSec },
      data: { minRuntimeSec: r.minRuntime, protectedUntil },
    });
    const run = await tx.runSegment.updateMany({ where: { id: open.id, endedAt: null }, data: { protectedUntil } });
    if (changed.count !== 1 || run.count !== 1) throw conflict(`Session ${id} changed while extending; try again`);
    await tx.jobEvent.create({
      data: {
        jobId: id,
        at: now,
        kind: "EXTENDED" satisfies JobEventKind,
        sentence: `${actor.name} extended its protection by ${formatDuration(by)}: nothing preempts it for ${formatDuration(r.protectedUntil - sec(now))}. A new contract of ${formatDuration(r.minRuntime)} after its start, charged to ${job.budget.path}.`,
        details: { by, minRuntime: r.minRuntime, protectedUntil: protectedUntil.toISOString() },
        actorKind: "USER",
        actorId: actor.id,
      },
    });
  });
  return getJob(prisma, actor, id);
}

/**
 * Session `id` when `actor` owns it; to anyone else it does not exist (404, so a session's id says
 * nothing about it).
 */
export async function ownSession(prisma: PrismaClient, actor: Actor, id: number): Promise<{ state: string; secretEnv: unknown }> {
  const job = await prisma.job.findUnique({
    where: { id },
    select: { userId: true, kind: true, state: true, secretEnv: true },
  });
  if (!job || job.kind !== "INTERACTIVE" || job.userId !== actor.id) throw notFound(`You have no session ${id}`);
  return job;
}

/**
 * Where the proxy sends a request for session `id`: its server's address and token. Only its owner
 * may reach it; to anyone else it does not exist (404, so a session's id says nothing about it).
 */
export async function sessionTarget(
  prisma: PrismaClient,
  actor: Actor,
  id: number,
): Promise<{ url: string; token: string; node: string }> {
  const job = await ownSession(prisma, actor, id);
  const run = await prisma.runSegment.findFirst({
    where: { jobId: id, endedAt: null },
    orderBy: { id: "desc" },
    select: { sessionHost: true, sessionPort: true, placements: { select: { node: { select: { name: true } } } } },
  });
  // While it stops (its grace period) its server still answers: its owner may save work.
  if ((job.state !== "RUNNING" && job.state !== "STOPPING") || !run)
    throw conflict(
      job.state === "PENDING" || job.state === "HELD"
        ? `Session ${id} is waiting for GPUs: it can be reached once it runs`
        : `Session ${id} is ${job.state.toLowerCase()}: it cannot be reached`,
    );
  const node = run.placements[0]?.node.name ?? "its node";
  if (run.sessionHost === null || run.sessionPort === null)
    throw conflict(`Session ${id} is starting on ${node}: its server has not reported where it listens yet`);
  const token = (job.secretEnv as Record<string, string> | null)?.[SESSION_TOKEN_VAR] ?? "";
  const host = run.sessionHost.includes(":") ? `[${run.sessionHost}]` : run.sessionHost;
  return { url: `http://${host}:${run.sessionPort}`, token, node };
}
