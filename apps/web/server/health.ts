import type { PrismaClient } from "@tranche/db";
import { IN_SERVICE } from "@tranche/domain";
import { VERSION } from "./version";

// Agents count as connected while their last heartbeat is younger than the heartbeat timeout (SPEC: 30 s).
const HEARTBEAT_TIMEOUT_MS = 30_000;
// The leader commits a cycle every few seconds (TRANCHE_CYCLE_INTERVAL_MS, 3 s by default), whether it
// changes anything or not; two minutes without one is a scheduler that has stopped.
const STALLED_AFTER_MS = 120_000;

/**
 * Up or not, for load balancers and `npm start`; `detailed` adds the leader's id, node counts and the
 * database's error, which the route gives only to those who run the platform.
 */
export async function healthResponse(prisma: PrismaClient, detailed: boolean): Promise<Response> {
  let dbStatus = "ok";
  let worker: { leader: string | null; lastCycleAt: string | null } = { leader: null, lastCycleAt: null };
  let agents = { connected: 0, nodes: 0 };
  let stalled = false;
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
      prisma.node.count({ where: { ...IN_SERVICE, lastHeartbeatAt: { gte: since } } }),
      prisma.node.count({ where: IN_SERVICE }),
    ]);
    agents = { connected, nodes };
    const last = worker.leader !== null ? lease?.lastCycleAt : null;
    stalled = !!last && Date.now() - last.getTime() > STALLED_AFTER_MS && (await prisma.cluster.count()) > 0;
  } catch (e) {
    dbStatus = `error: ${(e as Error).message.split("\n")[0]}`;
  }
  // The web app still answers when the scheduler has stopped: 200 (a load balancer keeps it), but
  // "degraded", which a monitor can alert on.
  const status = dbStatus === "ok" ? 200 : 503;
  const word = status !== 200 ? "unavailable" : stalled ? "degraded" : "ok";
  const headers = { "cache-control": "no-store" };
  if (!detailed) return Response.json({ status: word }, { status, headers });
  const scheduler = stalled ? `stalled: no cycle since ${worker.lastCycleAt}` : worker.leader === null ? "no leader" : "ok";
  return Response.json({ status: word, db: dbStatus, version: VERSION, worker, scheduler, agents }, { status, headers });
}
