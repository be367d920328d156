import type { PendingEntry } from "../order-pending";
import type { CycleSession } from "./session";

/**
 * R5/R7: the previous cycle's reservations (ClusterSnapshot.reservations) hold through the debug
 * lane, so a debug job does not take the nodes a large job has been waiting for; the allocated lane
 * then computes this cycle's reservations afresh (see lanes.ts). A reservation whose holder is no
 * longer pending, or whose nodes are gone or taken, is dropped. Returns the holders carried.
 */
export function carryReservations(s: CycleSession): Map<string, PendingEntry> {
  const { snapshot, board, policy, reservations } = s;
  const carried = new Map<string, PendingEntry>();
  if (!snapshot.reservations || snapshot.reservations.length === 0) return carried;
  // The holders the kept admission knows (it admitted them this cycle), without a look through the
  // whole backlog; any other id, through the entries.
  const wanted = new Set<string>();
  for (const r of snapshot.reservations) {
    const known = s.admission.holderNow(r.jobId);
    if (known !== undefined) carried.set(r.jobId, known);
    else wanted.add(r.jobId);
  }
  if (wanted.size > 0) for (const e of s.entries) if (wanted.has(e.job.id)) carried.set(e.job.id, e);
  for (const r of [...snapshot.reservations].sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0))) {
    const holder = carried.get(r.jobId);
    if (!holder || reservations.length >= policy.maxReservations) continue;
    const nodes = r.nodeIds
      .map((id) => board.indexOf(id))
      .filter((n): n is number => n !== undefined && reservations.reservedBy[n]! < 0);
    if (nodes.length === 0) continue;
    reservations.add(
      { jobId: r.jobId, gpus: r.gpus, nodeIds: nodes.map((n) => board.nodes[n]!.id), from: r.from, holder },
      nodes,
    );
  }
  return carried;
}
