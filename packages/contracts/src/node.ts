import { z } from "zod";

export const NODE_ACTIONS = ["cordon", "drain", "uncordon", "markRepaired"] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

export const nodeActionInput = z.object({
  nodeId: z.string().min(1, "nodeId is required"),
  reason: z.string().trim().max(500).optional(),
});
