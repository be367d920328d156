import { db } from "../../../server/db";
import { VERSION } from "../../../server/version";

export const dynamic = "force-dynamic";

// Agents count as connected while their last heartbeat is younger than the heartbeat timeout (SPEC: 30 s).
const HEARTBEAT_TIMEOUT_MS = 30_000;

export async function GET() {
  const prisma = db();
  let dbStatus = "ok";
  let worker: { leader: string | null; lastCycleAt: string | null } = { leader: null, lastCycleAt: null };
  let agents = { connected: 0, nodes: 0 };
  try {
    await prisma.$queryRaw`SELECT 1`;
    const lease = await prisma.workerLease.findUnique({ where: { name: "scheduler" } });
    if (lease && lease.expiresAt.getTime() > Date.now()) {
      worker = { leader: lease.holderId, lastCycleAt: lease.lastCycleAt?.toISOString() ?? null };
    } else if (lease) {
      worker = { leader: null, lastCycleAt: lease.lastCycleAt?.toISOString() ?? null };
    }
    const since = new Date(Date.now() - HEARTBEAT_TIMEOUT_MS);
    const [connected, nodes] = await Promise.all([
      prisma.node.count({ where: { lastHeartbeatAt: { gte: since } } }),
      prisma.node.count(),
    ]);
    agents = { connected, nodes };
  } catch (e) {
    dbStatus = `error: ${(e as Error).message.split("\n")[0]}`;
  }
  return Response.json(
    { db: dbStatus, version: VERSION, worker, agents },
    { status: dbStatus === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
