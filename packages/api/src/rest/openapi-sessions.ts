import { extendSessionInput, startSessionInput } from "@tranche/contracts";
import { errorResponses, schema } from "./openapi-parts";

const job = (description: string) => ({
  description,
  content: {
    "application/json": {
      schema: { type: "object", properties: { job: { $ref: "#/components/schemas/Job" } }, required: ["job"] },
    },
  },
});
const id = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };

/** OpenAPI paths of session-routes.ts: start a session, extend it, reach it through the proxy. */
export function withSessionPaths<P extends Record<string, object>>(paths: P): P & Record<string, object> {
  const proxied = {
    summary:
      "The session's own server (the shell server's page, /exec, /files/..., or Jupyter), for its owner only: anyone else gets 404. The path after /proxy/ is passed on; your cookie and token are not",
    parameters: [id, { name: "path", in: "path", required: true, schema: { type: "string" } }],
    responses: {
      "200": { description: "The session server's answer" },
      "502": { description: "The session's server does not answer (starting or stopping)" },
      ...errorResponses([401, 404, 409]),
    },
  };
  const more: Record<string, object> = {
    "/sessions": {
      post: {
        summary: "Start an interactive session (a job of kind INTERACTIVE running a shell server, or Jupyter)",
        operationId: "startSession",
        requestBody: { required: true, content: { "application/json": { schema: schema(startSessionInput, "input") } } },
        responses: { "201": job("The session, pending"), ...errorResponses([400, 401, 403]) },
      },
    },
    "/jobs/{id}/extend": {
      post: {
        summary: "Protect a running session longer: a new contract, charged to its budget, within the cluster's cap",
        operationId: "extendSession",
        parameters: [id],
        requestBody: {
          required: true,
          content: { "application/json": { schema: schema(extendSessionInput.omit({ id: true }), "input") } },
        },
        responses: { "200": job("The session with its new protection"), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    "/sessions/{id}/proxy/{path}": {
      get: { ...proxied, operationId: "sessionProxyGet" },
      post: { ...proxied, operationId: "sessionProxyPost" },
    },
  };
  return { ...paths, ...more } as P & Record<string, object>;
}
