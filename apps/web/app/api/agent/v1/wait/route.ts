import { LIMITS, readBodyText } from "@tranche/contracts";
import { AgentWakeups, agentReplyHeaders, handleAgentRequest } from "@tranche/domain/runtime";
import { agentDb } from "../../../../../server/db";
import { apiRoute } from "../../../../../server/api-route";
import { agentClient } from "../../../../../server/agent-client";
import { shutdownSignal } from "../../../../../server/shutdown";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// One LISTEN connection per server process for every agent's long-poll; kept on globalThis across
// Next's dev reloads like the Prisma client.
const g = globalThis as unknown as { trancheAgentWakeups?: AgentWakeups };

// Agent long-poll (packages/contracts/src/agent.ts): held up to 25 s, answered when the worker
// notifies this node, or at once when the server is stopping (the agent then retries until a server
// answers). A thin adapter over the domain's handler.
export const POST = apiRoute(async (req: Request) => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start the web app through `npm start`.");
  const reply = await handleAgentRequest(
    agentDb(),
    {
      method: "POST",
      route: "wait",
      authorization: req.headers.get("authorization"),
      client: agentClient(req),
      readBody: () => readBodyText(req, LIMITS.agentRequestBytes),
    },
    { wakeups: (g.trancheAgentWakeups ??= new AgentWakeups(url)), signal: AbortSignal.any([req.signal, shutdownSignal()]) },
  );
  return Response.json(reply.body, { status: reply.status, headers: agentReplyHeaders(reply) });
});
