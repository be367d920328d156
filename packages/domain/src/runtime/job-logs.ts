import type { Tx } from "@tranche/db";
import { LIMITS, formatBytes, type LogChunk } from "@tranche/contracts";

/**
 * The log chunks of a heartbeat that fit under each job's cap (LIMITS.logBytesPerJob), counted in
 * job.logBytes. The chunk that crosses the cap is cut and followed by one line saying so; later
 * chunks are dropped, not refused: the agent must still advance past them, and the full output stays
 * in the job's log file on the node.
 */
export async function withinJobLogCap(tx: Tx, logs: LogChunk[], nodeName: string): Promise<LogChunk[]> {
  if (logs.length === 0) return logs;
  const cap = LIMITS.logBytesPerJob;
  const add = new Map<number, number>();
  for (const l of logs) add.set(l.jobId, (add.get(l.jobId) ?? 0) + Buffer.byteLength(l.text, "utf8"));
  const ids = [...add.keys()];
  // Atomic per job (gang members report the same job): only a job still under its cap counts more.
  const rows = await tx.$queryRaw<{ id: number; before: number }[]>`
    UPDATE job j SET "logBytes" = j."logBytes" + x.add
    FROM unnest(${ids}::int[], ${ids.map((i) => add.get(i)!)}::int[]) AS x(id, add)
    WHERE j.id = x.id AND j."logBytes" < ${cap}
    RETURNING j.id, j."logBytes" - x.add AS before`;
  const room = new Map(rows.map((r) => [r.id, cap - Number(r.before)]));
  const out: LogChunk[] = [];
  for (const l of logs) {
    const left = room.get(l.jobId);
    if (left === undefined || left <= 0) continue;
    const bytes = Buffer.byteLength(l.text, "utf8");
    if (bytes <= left) {
      out.push(l);
      room.set(l.jobId, left - bytes);
      continue;
    }
    const cut = Buffer.from(l.text, "utf8")
      .subarray(0, left)
      .toString("utf8")
      .replace(/\uFFFD$/, "");
    out.push({ ...l, text: cut });
    out.push({
      ...l,
      stream: "stderr",
      text: `\n[Tranche: this job's log reached ${formatBytes(cap)}, the most the control plane keeps per job; the rest is only in its log file on node ${nodeName}]\n`,
    });
    room.set(l.jobId, 0);
  }
  return out;
}
