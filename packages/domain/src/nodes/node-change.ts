import type { NodeState } from "@tranche/contracts";
import type { Prisma, Tx } from "@tranche/db";
import { conflict } from "../errors";

/**
 * A person's change to a node (an operator's action, a retirement, a revoked credential), inside the
 * caller's transaction: written only if the node is still in the state the caller read (the worker and
 * the agents change it too, so a stale read must not overwrite theirs), with its line in the node's
 * history. `to` is the state it goes to (the same state where only its record changes).
 */
export async function changeNode(
  tx: Tx,
  node: { id: string; name: string; state: NodeState },
  change: { to: NodeState; at: Date; reason: string | null; actorId: string; data: Prisma.NodeUncheckedUpdateManyInput },
): Promise<void> {
  const r = await tx.node.updateMany({ where: { id: node.id, state: node.state }, data: change.data });
  if (r.count !== 1) throw conflict(`${node.name} changed state meanwhile; reload and try again`);
  await tx.nodeEvent.create({
    data: {
      nodeId: node.id,
      at: change.at,
      fromState: node.state,
      toState: change.to,
      reason: change.reason ?? "",
      automatic: false,
      actorId: change.actorId,
    },
  });
}
