import { LIMITS } from "@tranche/contracts";

// Per process, on globalThis: Next may load this module once per agent route's bundle, and the bound is
// the process's (heartbeats and long-polls together).
const g = globalThis as unknown as { trancheAgentInFlight?: Map<string, number> };

/**
 * Counts one request of `nodeId` in flight and answers the function that ends it (call it once), or
 * null when the node already has `limit` in flight: the request is then refused unread.
 */
export function enterAgentRequest(nodeId: string, limit = LIMITS.agentRequestsInFlightPerNode): (() => void) | null {
  const map = (g.trancheAgentInFlight ??= new Map());
  const now = map.get(nodeId) ?? 0;
  if (now >= limit) return null;
  map.set(nodeId, now + 1);
  let left = false;
  return () => {
    if (left) return;
    left = true;
    const rest = (map.get(nodeId) ?? 1) - 1;
    if (rest > 0) map.set(nodeId, rest);
    else map.delete(nodeId);
  };
}

const h = globalThis as unknown as { trancheAgentTurns?: Map<string, Promise<void>> };

/**
 * Runs `fn` once the node's earlier heartbeats in this process have ended. They would wait for the
 * node's row lock anyway, each holding one of the agents' five database connections meanwhile: a node's
 * four requests in flight could hold four, and every other node's heartbeat wait for the fifth.
 */
export async function inNodeTurn<T>(nodeId: string, fn: () => Promise<T>): Promise<T> {
  const turns = (h.trancheAgentTurns ??= new Map());
  const before = turns.get(nodeId) ?? Promise.resolve();
  let done!: () => void;
  const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  turns.set(nodeId, mine);
  try {
    await before;
    return await fn();
  } finally {
    // `done` is set once `before` has settled, which it has by now.
    done();
    if (turns.get(nodeId) === mine) turns.delete(nodeId);
  }
}
