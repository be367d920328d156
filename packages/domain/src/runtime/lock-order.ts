import { Prisma, type Tx } from "@tranche/db";

/**
 * One lock order for every transaction that changes a running job and its node (the plan applier, an
 * agent's heartbeat): the node rows it changes in id order first, then every job row it changes in id
 * order, all before any run segment or ledger row. Two transactions that take rows in the same order
 * wait for each other (only where they share a node or a job) instead of deadlocking. The one step that
 * reaches past its own jobs, the cycle's charge of every open segment, locks the jobs no one else holds
 * (skipping the others) before their segments, never a segment whose job another transaction holds.
 * `FOR NO KEY UPDATE` is what an UPDATE of a node takes anyway, and it still lets other transactions
 * insert rows that reference the node (events, placements).
 *
 * Rows of many pending jobs: a transaction that changes their state (a bulk cancel) locks them in id
 * order too; the notes a cycle or the start forecast writes on them (reasons, estimates) skip rows
 * others hold instead of waiting (write-reasons.ts), so a cycle waits on job rows only in lockJobs.
 */
export async function lockNodes(tx: Tx, which: { clusterId: string } | { nodeIds: string[] }): Promise<void> {
  if ("clusterId" in which)
    await tx.$queryRaw`SELECT id FROM node WHERE "clusterId" = ${which.clusterId} ORDER BY id FOR NO KEY UPDATE`;
  else if (which.nodeIds.length > 0)
    await tx.$queryRaw`SELECT id FROM node WHERE id = ANY(${which.nodeIds}::text[]) ORDER BY id FOR NO KEY UPDATE`;
}

/** Job rows in id order (after their nodes): closeRun locks each again, which then costs nothing. */
export async function lockJobs(tx: Tx, jobIds: number[]): Promise<void> {
  const ids = [...new Set(jobIds)];
  if (ids.length > 0) await tx.$queryRaw`SELECT id FROM job WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE`;
}

/**
 * The pending jobs among `ids` that no other transaction holds, locked in id order: the rows a note
 * (a reason, a start estimate) may be written on without waiting. For a `WITH free AS (...)` of the
 * note's UPDATE, which then writes only `j.id IN (SELECT id FROM free)`.
 */
export function pendingJobsFree(ids: number[]): Prisma.Sql {
  return Prisma.sql`SELECT id FROM job WHERE id = ANY(${ids}::int[]) AND state IN ('PENDING', 'HELD') ORDER BY id FOR UPDATE SKIP LOCKED`;
}
