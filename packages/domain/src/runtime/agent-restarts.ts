import type { HeartbeatRequest, NodeState } from "@tranche/contracts";
import type { Tx } from "@tranche/db";
import { agentRestartedText } from "./agent-history-words";

/**
 * Restarts within this long of a node's latest restart line are counted on that line rather than writing
 * their own: an agent in a crash loop (restarted by systemd every few seconds) writes one line per node
 * per ten minutes, saying how many times, instead of growing the history without bound.
 */
export const AGENT_RESTART_FOLD_MS = 10 * 60_000;

/** What the node's row said of its agent before this heartbeat (read with the node locked). */
export interface AgentBefore {
  agentVersion: string | null;
  agentStartId: string | null;
}

/**
 * Writes the node-history line for an agent restart this heartbeat shows, if it shows one: another start
 * id than the last (the agent's process started again, whatever its version) or another version. A node
 * never heard from, or whose agent sends no start id (older agents), shows none by its id. The node must
 * be locked (heartbeats of one node are then one at a time); `state` is its state after this heartbeat.
 */
export async function noteAgentRestart(
  tx: Tx,
  nodeId: string,
  before: AgentBefore,
  hb: Pick<HeartbeatRequest, "agentVersion" | "agentStartId">,
  state: NodeState,
  now: Date,
): Promise<void> {
  const newVersion = before.agentVersion !== null && before.agentVersion !== hb.agentVersion;
  const newStart = hb.agentStartId !== undefined && before.agentStartId !== null && before.agentStartId !== hb.agentStartId;
  if (!newVersion && !newStart) return;
  const was = newVersion ? before.agentVersion : null;
  const line = await tx.agentRestartLine.findUnique({ where: { nodeId } });
  if (line && now.getTime() - line.since.getTime() < AGENT_RESTART_FOLD_MS) {
    const restarts = line.restarts + 1;
    const wasVersion = line.wasVersion ?? was;
    const minutes = Math.ceil((now.getTime() - line.since.getTime()) / 60_000);
    const folded = await tx.nodeEvent.updateMany({
      where: { id: line.eventId, nodeId },
      data: { reason: agentRestartedText(hb.agentVersion, wasVersion, restarts, minutes) },
    });
    // A line no longer there (its node's history pruned) starts a new one.
    if (folded.count === 1) {
      await tx.agentRestartLine.update({ where: { nodeId }, data: { restarts, wasVersion } });
      return;
    }
  }
  const event = await tx.nodeEvent.create({
    data: {
      nodeId,
      at: now,
      fromState: state,
      toState: state,
      reason: agentRestartedText(hb.agentVersion, was),
      automatic: true,
    },
  });
  const fresh = { eventId: event.id, since: now, restarts: 1, wasVersion: was };
  await tx.agentRestartLine.upsert({ where: { nodeId }, create: { nodeId, ...fresh }, update: fresh });
}
