import { nodeActionBody, nodeDrainBody, nodeListQuery } from "@tranche/contracts";
import { errorResponses, jsonAnswer, queryParams, schema } from "./openapi-parts";

const name = { name: "name", in: "path", required: true, description: "The node's name", schema: { type: "string" } };
const nodeAnswer = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object", properties: { node: { type: "object" } }, required: ["node"] } } },
});

/** One state change of an operator (node-routes.ts): the body is optional and says why. */
const action = (summary: string, operationId: string) => ({
  post: {
    summary,
    operationId,
    parameters: [name],
    requestBody: { required: false, content: { "application/json": { schema: schema(nodeActionBody, "input") } } },
    responses: { "200": nodeAnswer("The node in its new state"), ...errorResponses([400, 401, 403, 404, 409]) },
  },
});

/** OpenAPI paths of node-routes.ts: the nodes page's view and its operators' actions. */
export function withNodePaths<P extends Record<string, object>>(paths: P): P & Record<string, object> {
  const more: Record<string, object> = {
    "/nodes": {
      get: {
        summary:
          "Nodes (every cluster's, or ?cluster=; only those in ?state=draining,down; retired ones with ?retired=1), as the nodes page shows them: state and why, health, heartbeat, and which job, budget and user hold each GPU",
        operationId: "listNodes",
        parameters: queryParams(nodeListQuery),
        responses: {
          "200": jsonAnswer("Nodes by cluster and name"),
          ...errorResponses([400, 401, 404]),
        },
      },
    },
    "/nodes/{name}": {
      get: {
        summary: "One node with its latest state changes, newest first",
        operationId: "getNode",
        parameters: [name],
        responses: {
          "200": jsonAnswer("{ node, events }"),
          ...errorResponses([401, 404]),
        },
      },
    },
    "/nodes/{name}/cordon": action(
      "Cordon a READY node (operators): nothing new starts there; its jobs keep running",
      "cordonNode",
    ),
    "/nodes/{name}/drain": {
      post: {
        summary:
          "Drain a READY or CORDONED node (operators): nothing new starts there, its jobs are preempted as their contracts allow (R8), then it goes to REPAIR. With `at` (ISO 8601 with its zone, in the future), a planned drain: until then only work whose protection ends by then starts there, and at it the node drains",
        operationId: "drainNode",
        parameters: [name],
        requestBody: { required: false, content: { "application/json": { schema: schema(nodeDrainBody, "input") } } },
        responses: {
          "200": nodeAnswer("The node in its new state, or with its plan"),
          ...errorResponses([400, 401, 403, 404, 409]),
        },
      },
      delete: {
        summary: "Cancel a node's planned drain (operators): it stays in the state it is in; 409 when it has none",
        operationId: "cancelNodeDrain",
        parameters: [name],
        responses: { "200": nodeAnswer("The node without its plan"), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    "/nodes/{name}/uncordon": action("Return a CORDONED or DRAINING node to READY (operators)", "uncordonNode"),
    "/nodes/{name}/repaired": action(
      "Mark a node repaired (operators): from REPAIR, DOWN, DRAINING or CORDONED back to READY, healthy",
      "markNodeRepaired",
    ),
    "/nodes/{name}/retire": {
      post: {
        summary:
          "Retire an empty node for good (operators): its agent is refused, scheduling, capacity and the node lists leave it out (?retired=1 lists it), its history and its jobs' placements are kept; 409 naming the jobs while any runs or is placed there",
        operationId: "retireNode",
        parameters: [name],
        requestBody: { required: false, content: { "application/json": { schema: schema(nodeActionBody, "input") } } },
        responses: {
          "200": nodeAnswer(
            "What was retired: { node, cluster, from, waitingNamingIt, strandedJobs }: the waiting jobs whose node list names it, and those of them it leaves no node to run on (their owners are notified)",
          ),
          ...errorResponses([400, 401, 403, 404, 409]),
        },
      },
    },
    "/nodes/{name}/revoke-credential": {
      post: {
        summary:
          "Revoke a node's credential (operators): its agent is refused until it enrolls again; a READY node is cordoned, and `runningJobs` counts the jobs its agent will stop at its heartbeat timeout",
        operationId: "revokeNodeCredential",
        parameters: [name],
        requestBody: { required: false, content: { "application/json": { schema: schema(nodeActionBody, "input") } } },
        responses: { "200": nodeAnswer("Done"), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
  };
  return { ...paths, ...more } as P & Record<string, object>;
}
