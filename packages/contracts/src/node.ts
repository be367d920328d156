import { strictObject, text } from "./input";

export const NODE_ACTIONS = ["cordon", "drain", "uncordon", "markRepaired"] as const;
export type NodeAction = (typeof NODE_ACTIONS)[number];

export const nodeActionInput = strictObject(
  {
    nodeId: text("nodeId").min(1, "nodeId is required").max(200),
    reason: text("reason").trim().max(500, "reason is longer than 500 characters").optional(),
  },
  "a node action",
);
