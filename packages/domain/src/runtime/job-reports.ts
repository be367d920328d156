import type { Tx } from "@tranche/db";
import type { JobReport } from "@tranche/contracts";
import { squattingAfterReport } from "@tranche/scheduler-core";

const secs = (d: Date | null): number | null => (d === null ? null : Math.floor(d.getTime() / 1000));
const date = (s: number | null, now: Date): Date | null =>
  s === null ? null : s === Math.floor(now.getTime() / 1000) ? now : new Date(s * 1000);

/**
 * SPEC §4 squatting, applied to one heartbeat: each charged run on this node gets the mean of its own
 * GPUs' readings, and the core's rule (squattingAfterReport) moves its idle streak and flag. Both are
 * stored on the job, so the 30-minute window survives a restart of the web app or the worker.
 */
export async function applySquattingRule(tx: Tx, nodeId: string, util: Map<number, number>, now: Date): Promise<void> {
  const mine = await tx.$queryRaw<{ jobId: number; gpuIndexes: number[]; idleSince: Date | null; squattingSince: Date | null }[]>`
    SELECT s."jobId", p."gpuIndexes", j."idleSince", j."squattingSince" FROM segment_placement p
    JOIN run_segment s ON s.id = p."segmentId" AND s."endedAt" IS NULL AND s.charged
    JOIN job j ON j.id = s."jobId" AND j.state = 'RUNNING'
    WHERE p."nodeId" = ${nodeId}`;
  const at = Math.floor(now.getTime() / 1000);
  for (const m of mine) {
    const readings = m.gpuIndexes.map((g) => util.get(g)).filter((v): v is number => v !== undefined);
    const before = { idleSince: secs(m.idleSince), flaggedAt: secs(m.squattingSince) };
    const after = squattingAfterReport(before, readings, at);
    if (after.idleSince === before.idleSince && after.flaggedAt === before.flaggedAt) continue;
    // The stored dates are kept as they were when unchanged (they carry milliseconds the rule drops).
    await tx.job.update({
      where: { id: m.jobId },
      data: {
        idleSince: after.idleSince === before.idleSince ? m.idleSince : date(after.idleSince, now),
        squattingSince: after.flaggedAt === before.flaggedAt ? m.squattingSince : date(after.flaggedAt, now),
      },
    });
  }
}

/**
 * Checkpoint times the agent read from each job's `$TRANCHE_CHECKPOINT_DIR/.tranche-checkpoint`: the
 * newest is kept on the job (its checkpoint folder is the same on every node, so it outlives the run).
 * The agent's clock is not trusted: its times are read on ours (agent-clock.ts), and one in the future
 * still counts as now.
 */
export async function recordCheckpoints(
  tx: Tx,
  reports: JobReport[],
  segs: Map<string, { jobId: number }>,
  now: Date,
  onOurClock: (iso: string) => number,
): Promise<void> {
  const newest = new Map<number, number>();
  for (const r of reports) {
    if (!r.checkpointAt || !segs.has(r.segmentId)) continue;
    const t = Math.min(onOurClock(r.checkpointAt), now.getTime());
    if (t > (newest.get(r.jobId) ?? -Infinity)) newest.set(r.jobId, t);
  }
  for (const [jobId, t] of newest) {
    const at = new Date(t);
    await tx.job.updateMany({
      where: { id: jobId, OR: [{ lastCheckpointAt: null }, { lastCheckpointAt: { lt: at } }] },
      data: { lastCheckpointAt: at },
    });
  }
}

/**
 * Where each interactive session's server listens, as its agent reports it: kept on the open run (a
 * new run starts without an address, so the proxy never reaches an old one). Written only when it changed.
 */
export async function recordSessions(tx: Tx, reports: JobReport[], segs: Map<string, { endedAt: Date | null }>): Promise<void> {
  for (const r of reports) {
    const s = segs.get(r.segmentId);
    if (!r.session || r.status !== "RUNNING" || !s || s.endedAt !== null) continue;
    await tx.$executeRaw`
      UPDATE run_segment SET "sessionHost" = ${r.session.host}, "sessionPort" = ${r.session.port}, "sessionDir" = ${r.session.dir}
      WHERE id = ${BigInt(r.segmentId)} AND "endedAt" IS NULL
        AND ("sessionHost" IS DISTINCT FROM ${r.session.host} OR "sessionPort" IS DISTINCT FROM ${r.session.port}
             OR "sessionDir" IS DISTINCT FROM ${r.session.dir})`;
  }
}
