import type { Node } from "../types";

/** A node counts as healthy capacity while it is up, reports healthy and is not in repair. */
export function isHealthyCapacity(node: Pick<Node, "state" | "health">): boolean {
  return node.health === "HEALTHY" && (node.state === "READY" || node.state === "CORDONED" || node.state === "DRAINING");
}
