import type { PrismaClient } from "@tranche/db";
import { LOG_PAGE_DEFAULT, type JobLogPage, type JobLogsQuery, type LogChunkView } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { forbidden, notFound } from "../errors";
import { accessToJob } from "./queries";
import { heartbeatIntervalSec } from "../runtime/agent-protocol";

/** The job's row if the actor may read its logs (owner, managers of its budget, operators, admins). */
async function readableJob(prisma: PrismaClient, actor: Actor, id: number) {
  const job = await prisma.job.findUnique({
    where: { id },
    select: { userId: true, budgetId: true, state: true, logBytes: true, logDroppedBytes: true },
  });
  if (!job) throw notFound(`There is no job ${id}`);
  if ((await accessToJob(prisma, actor, job)) === "none")
    throw forbidden(
      `Job ${id} is not yours: its logs are visible to its owner, the managers of its budget, operators and admins`,
    );
  return job;
}

const view = (r: { id: bigint; at: Date; stream: string; node: string | null; text: string }): LogChunkView => ({
  cursor: r.id.toString(),
  at: r.at.toISOString(),
  stream: r.stream === "stderr" ? "stderr" : "stdout",
  node: r.node,
  text: r.text,
});

/**
 * One page of a job's kept log (see jobLogsQuery): the end by default, forward from `after`, or back
 * from `before`; chunks always in the order they were printed.
 */
export async function getJobLogPage(prisma: PrismaClient, actor: Actor, id: number, q: JobLogsQuery = {}): Promise<JobLogPage> {
  const job = await readableJob(prisma, actor, id);
  const limit = q.limit ?? LOG_PAGE_DEFAULT;
  const where = { jobId: id, ...(q.stream ? { stream: q.stream } : {}) };
  // Before the chunks are read: a log found complete now has all of its chunks committed, so this page
  // holds the last of them (read the other way round, a final upload could land in between).
  const complete = await logComplete(prisma, id, job.state);
  let rows;
  if (q.after !== undefined) {
    rows = await prisma.jobLogChunk.findMany({
      where: { ...where, id: { gt: BigInt(q.after) } },
      orderBy: { id: "asc" },
      take: limit,
    });
  } else {
    rows = await prisma.jobLogChunk.findMany({
      where: { ...where, ...(q.before !== undefined ? { id: { lt: BigInt(q.before) } } : {}) },
      orderBy: { id: "desc" },
      take: limit,
    });
    rows.reverse();
  }
  const first = rows[0]?.id;
  const older =
    first === undefined
      ? null
      : (await prisma.jobLogChunk.findFirst({ where: { ...where, id: { lt: first } }, select: { id: true } }))
        ? first.toString()
        : null;
  // An empty page keeps the reader's place: following from it later returns what came since.
  const last = rows.at(-1)?.id;
  const next =
    last !== undefined
      ? last.toString()
      : (q.after ??
        (q.before !== undefined
          ? String(BigInt(q.before) - 1n < 0n ? 0n : BigInt(q.before) - 1n)
          : await lastCursor(prisma, id, where)));
  return {
    jobId: id,
    state: job.state,
    chunks: rows.map(view),
    next,
    older,
    keptBytes: job.logBytes,
    droppedBytes: Number(job.logDroppedBytes),
    complete,
  };
}

const ACTIVE = new Set(["PENDING", "HELD", "RUNNING", "STOPPING"]);

/**
 * An ended job's log is complete once each of its runs is: its agent said the run's whole output was
 * uploaded, or no agent has reported its exit for a while (a node lost, or an agent too old to say; a
 * while is 2 heartbeat periods with no report at all, 60 s after the last one).
 */
async function logComplete(prisma: PrismaClient, id: number, state: string): Promise<boolean> {
  if (ACTIVE.has(state)) return false;
  const now = Date.now();
  const never = new Date(now - 2 * heartbeatIntervalSec() * 1000);
  const silent = new Date(now - 60_000);
  const open = await prisma.runSegment.count({
    where: {
      jobId: id,
      logsCompleteAt: null,
      OR: [{ endedAt: null }, { lastExitReportAt: null, endedAt: { gt: never } }, { lastExitReportAt: { gt: silent } }],
    },
  });
  return open === 0;
}

async function lastCursor(prisma: PrismaClient, id: number, where: object): Promise<string> {
  const last = await prisma.jobLogChunk.findFirst({ where, orderBy: { id: "desc" }, select: { id: true } });
  return last?.id.toString() ?? "0";
}

/**
 * Chunks of one page of a download: at most 32 x 64 Ki characters (2 MiB of text, the agents send 32 KiB
 * chunks) held per download at once. Pages of 1,000 chunks held 32 MB or more each: 20 downloads of a
 * 64 MiB log that nobody read held 1.3 GB of the web process (a security audit).
 */
const DOWNLOAD_PAGE_CHUNKS = 32;

/**
 * A job's whole kept log as text, read in pages so a long log never sits in memory at once (the
 * download of the job page and of `GET /api/v1/jobs/{id}/logs/download`).
 */
export async function jobLogText(
  prisma: PrismaClient,
  actor: Actor,
  id: number,
  stream?: "stdout" | "stderr",
): Promise<{ droppedBytes: number; chunks: AsyncIterable<string> }> {
  const job = await readableJob(prisma, actor, id);
  const droppedBytes = Number(job.logDroppedBytes);
  async function* chunks(): AsyncIterable<string> {
    if (droppedBytes > 0)
      yield `[Tranche: ${droppedBytes.toLocaleString("en-US")} bytes of older output were dropped to keep this job's log within its retention]\n`;
    let after = -1n;
    for (;;) {
      const rows = await prisma.jobLogChunk.findMany({
        where: { jobId: id, id: { gt: after }, ...(stream ? { stream } : {}) },
        orderBy: { id: "asc" },
        take: DOWNLOAD_PAGE_CHUNKS,
        select: { id: true, text: true },
      });
      if (rows.length === 0) return;
      yield rows.map((r) => r.text).join("");
      after = rows.at(-1)!.id;
    }
  }
  return { droppedBytes, chunks: chunks() };
}
