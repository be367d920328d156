import { LIMITS, readBodyText } from "@tranche/contracts";
import { agentReplyHeaders, handleAgentRequest } from "@tranche/domain/runtime";
import { agentDb } from "../../../../../server/db";
import { apiRoute } from "../../../../../server/api-route";
import { agentClient } from "../../../../../server/agent-client";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Agent protocol (packages/contracts/src/agent.ts): a thin adapter over the domain's handler.
export const POST = apiRoute(async (req: Request) => {
  const reply = await handleAgentRequest(agentDb(), {
    method: "POST",
    route: "enroll",
    authorization: req.headers.get("authorization"),
    client: agentClient(req),
    readBody: () => readBodyText(req, LIMITS.agentEnrollBytes),
  });
  return Response.json(reply.body, { status: reply.status, headers: agentReplyHeaders(reply) });
});
