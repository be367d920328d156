import type { PrismaClient } from "@tranche/db";
import { NODE_ACTION_WORDS, nodeActionBody, nodeDrainBody, nodeListQuery } from "@tranche/contracts";
import {
  applyNodeAction,
  cancelNodeDrain,
  planNodeDrain,
  getNodeNamed,
  listNodesOf,
  requireNodeAction,
  requireRole,
  retireNode,
  revokeNodeCredential,
  type Actor,
} from "@tranche/domain";
import { json, noQuery, parse, queryOf, readJson } from "./io";

/**
 * The nodes of /api/v1, for operators' scripts and `tranche nodes` / `tranche node`: what the nodes page
 * shows (any signed-in user, as the page) and what its buttons do (operators). Nodes are named by their
 * names, which are unique across clusters. Answers null when no node route matches.
 */
export async function handleNodeRest(
  req: Request,
  method: string,
  parts: string[],
  actor: Actor,
  prisma: PrismaClient,
): Promise<Response | null> {
  const [head, name, action] = parts;
  if (head !== "nodes") return null;
  if (parts.length === 1 && method === "GET") {
    const { cluster, retired, state } = parse(nodeListQuery, queryOf(req));
    return json({ nodes: await listNodesOf(prisma, cluster, { retired, states: state }) });
  }
  if (parts.length === 2 && method === "GET") {
    noQuery(req, "a node's query");
    return json(await getNodeNamed(prisma, name!));
  }
  if (parts.length === 3 && action === "drain" && method === "DELETE") {
    // Cancels a planned drain (R8); the role before anything is read.
    requireNodeAction(actor, "drain");
    return json({ node: await cancelNodeDrain(prisma, actor, { name: name! }) });
  }
  if (parts.length !== 3 || method !== "POST") return null;
  if (action === "retire") {
    requireRole(actor, ["OPERATOR"], "retire nodes");
    const { reason } = parse(nodeActionBody, await readJson(req, { optional: true }));
    return json({ node: await retireNode(prisma, actor, { name: name! }, reason) });
  }
  if (action === "revoke-credential") {
    requireRole(actor, ["OPERATOR"], "revoke node credentials");
    const { reason } = parse(nodeActionBody, await readJson(req, { optional: true }));
    return json({ node: await revokeNodeCredential(prisma, actor, name!, reason) });
  }
  const nodeAction = Object.hasOwn(NODE_ACTION_WORDS, action!) ? NODE_ACTION_WORDS[action!]! : null;
  if (nodeAction === null) return null;
  // The role before the body: a researcher learns nothing of the input's shape from a 400.
  requireNodeAction(actor, nodeAction);
  if (nodeAction === "drain") {
    // With `at`, a planned drain (R8): the node drains then, and takes only work that may leave by then.
    const { reason, at } = parse(nodeDrainBody, await readJson(req, { optional: true }));
    if (at !== undefined) return json({ node: await planNodeDrain(prisma, actor, { name: name! }, at, reason) });
    return json({ node: await applyNodeAction(prisma, actor, { name: name! }, nodeAction, reason) });
  }
  const { reason } = parse(nodeActionBody, await readJson(req, { optional: true }));
  return json({ node: await applyNodeAction(prisma, actor, { name: name! }, nodeAction, reason) });
}
