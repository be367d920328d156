import type { PrismaClient } from "@tranche/db";
import { VERSION } from "./version";

// Agents count as connected while their last heartbeat is younger than the heartbeat timeout (SPEC: 30 s).
const HEARTBEAT_TIMEOUT_MS = 30_000;

/**
 * Up or not, for load balancers and `npm start`; `detailed` adds the leader's id, node counts and the
 * database's error, which the route gives only to those who run the platform.
 */
export async function healthResponse(prisma: PrismaClient, detailed: boolean): Promise<Response> {
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
  const status = dbStatus === "ok" ? 200 : 503;
  const headers = { "cache-control": "no-store" };
  if (!detailed) return Response.json({ status: status === 200 ? "ok" : "unavailable" }, { status, headers });
  return Response.json(
    { status: status === 200 ? "ok" : "unavailable", db: dbStatus, version: VERSION, worker, agents },
    { status, headers },
  );
}
