import type { GpuInfo } from "@tranche/contracts";
import type { Tx } from "@tranche/db";

/**
 * A retired node enrolled again with a token issued for its name: a new life of the same node, its
 * history and old jobs' placements kept. It starts DOWN, as a new host does (ready at its first healthy
 * heartbeat), with the GPUs its agent reports now; nothing of its old health or heartbeat carries over.
 */
export async function enrollRetired(
  tx: Tx,
  nodeId: string,
  data: { agentCredentialHash: string; agentVersion: string; gpuInventory: GpuInfo[] },
  agentVersion: string,
) {
  const now = new Date();
  await tx.nodeEvent.create({
    data: {
      nodeId,
      at: now,
      fromState: "RETIRED",
      toState: "DOWN",
      reason: `Enrolled again after its retirement (agent ${agentVersion}); ready at its first healthy heartbeat.`,
      automatic: true,
    },
  });
  return tx.node.update({
    where: { id: nodeId },
    data: {
      ...data,
      gpuCount: data.gpuInventory.length,
      state: "DOWN",
      stateReason: "enrolled",
      stateChangedAt: now,
      health: "HEALTHY",
      healthDetails: {},
      busyPercent: null,
      lastHeartbeatAt: null,
      drainIsManual: false,
    },
  });
}
