import type { PrismaClient } from "@tranche/db";

/** A reservation of the latest cycle (R7), as the queue shows it: the job by id, its nodes by name, its start in ISO 8601. */
export interface QueueReservation {
  jobId: number;
  gpus: number;
  nodes: string[];
  from: string;
}

/**
 * The cycle stores its reservations as the core made them ({ jobId: "12", nodeIds: [internal ids],
 * from: Unix seconds }); the queue answered them so, beside rows whose job ids are numbers, whose times
 * are ISO 8601 and whose nodes are named. Read the same way here, so a script can join them.
 */
export async function queueReservations(prisma: PrismaClient, clusterId: string, stored: unknown): Promise<QueueReservation[]> {
  const raw = Array.isArray(stored) ? (stored as { jobId?: unknown; gpus?: unknown; nodeIds?: unknown; from?: unknown }[]) : [];
  const kept = raw.filter((r) => typeof r.from === "number" && Number.isFinite(r.from) && Number.isInteger(Number(r.jobId)));
  if (kept.length === 0) return [];
  const nodes = await prisma.node.findMany({ where: { clusterId }, select: { id: true, name: true } });
  const names = new Map(nodes.map((n) => [n.id, n.name]));
  return kept.map((r) => ({
    jobId: Number(r.jobId),
    gpus: typeof r.gpus === "number" ? r.gpus : 0,
    nodes: (Array.isArray(r.nodeIds) ? r.nodeIds : []).map((id) => names.get(String(id)) ?? String(id)),
    from: new Date((r.from as number) * 1000).toISOString(),
  }));
}
