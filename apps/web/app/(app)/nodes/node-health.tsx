import { healthErrors, type NodeView } from "@tranche/contracts";

/**
 * A node's health on the nodes page, with what its agent reported when unhealthy: the words were
 * stored but shown nowhere, and a node drained by hand keeps the operator's reason, not the agent's.
 */
export function NodeHealth({ node }: { node: Pick<NodeView, "health" | "healthDetails"> }) {
  const errors = node.health === "UNHEALTHY" ? healthErrors(node.healthDetails) : null;
  return (
    <>
      {node.health.toLowerCase()}
      {errors ? <div className="small muted">{errors}</div> : null}
    </>
  );
}
