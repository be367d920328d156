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
      "The session's own server (the shell server's page, /exec, /files/..., or Jupyter), for its owner only: anyone else gets 404. Served on the sessions host alone (TRANCHE_SESSIONS_ORIGIN, a host name of its own, so what a session serves never acts with its owner's Tranche login); there a browser signs in through GET /sessions/{id}/open and a script sends its API token. On the web app's own address a GET is redirected (303) to the sessions host and anything else is refused (403). The path after /proxy/ is passed on; your cookie and token are not",
    parameters: [id, { name: "path", in: "path", required: true, schema: { type: "string" } }],
    responses: {
      "200": { description: "The session server's answer (on the sessions host)" },
      "303": {
        description:
          "On the web app's address: the same path on the sessions host. On the sessions host, a browser without its cookie: to /sessions/{id}/open, and back with a ticket, then to the address it asked for",
      },
      "502": { description: "The session's server does not answer (starting or stopping)" },
      "503": { description: "No sessions host is set (TRANCHE_SESSIONS_ORIGIN): sessions are not served" },
      ...errorResponses([401, 403, 404, 409]),
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
    "/sessions/{id}/open": {
      get: {
        summary:
          "How the sessions host gets a session's owner in: for the owner only (404 to anyone else), a ticket bound to the session, the owner and the browser's state, good once and for 60 s, sent back to the sessions host (303), which trades it for a cookie good for that session alone. Browsers follow it from the session's address; nobody calls it by hand. Signed out: to the sign-in page",
        operationId: "openSession",
        parameters: [
          id,
          {
            name: "state",
            in: "query",
            required: true,
            schema: { type: "string", pattern: "^[A-Za-z0-9_-]{32,128}$" },
            description: "The random state the sessions host gave the browser (in a cookie of its own)",
          },
        ],
        responses: {
          "303": { description: "To the sessions host with the ticket (or, signed out, to the sign-in page)" },
          "503": { description: "No sessions host is set (TRANCHE_SESSIONS_ORIGIN): sessions are not served" },
          ...errorResponses([400, 404]),
        },
      },
    },
    "/sessions/{id}/proxy/{path}": {
      get: { ...proxied, operationId: "sessionProxyGet" },
      post: { ...proxied, operationId: "sessionProxyPost" },
    },
  };
  return { ...paths, ...more } as P & Record<string, object>;
}
