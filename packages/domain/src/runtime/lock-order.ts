import type { Tx } from "@tranche/db";

/**
 * One lock order for every transaction that changes a running job and its node (the plan applier, an
 * agent's heartbeat): node rows in id order first, then job rows in id order, then what hangs off them
 * (run segments, ledgers). Two transactions that take rows in the same order wait for each other
 * instead of deadlocking. `FOR NO KEY UPDATE` is what an UPDATE of a node takes anyway, and it still
 * lets other transactions insert rows that reference the node (events, placements).
 */
export async function lockNodes(tx: Tx, which: { clusterId: string } | { nodeIds: string[] }): Promise<void> {
  if ("clusterId" in which)
    await tx.$queryRaw`SELECT id FROM node WHERE "clusterId" = ${which.clusterId} ORDER BY id FOR NO KEY UPDATE`;
  else if (which.nodeIds.length > 0)
    await tx.$queryRaw`SELECT id FROM node WHERE id = ANY(${which.nodeIds}::text[]) ORDER BY id FOR NO KEY UPDATE`;
}

/** Job rows in id order (after their nodes): closeRun locks each again, which then costs nothing. */
export async function lockJobs(tx: Tx, jobIds: number[]): Promise<void> {
  if (jobIds.length > 0) await tx.$queryRaw`SELECT id FROM job WHERE id = ANY(${jobIds}::int[]) ORDER BY id FOR UPDATE`;
}
