import type { PrismaClient } from "@tranche/db";
import { z } from "zod";
import { extendSessionInput, jobIdInput, sessionProxyPath, startSessionInput, strictObject } from "@tranche/contracts";
import { extendSession, issueSessionTicket, ownSession, startSession, type Actor } from "@tranche/domain";
import { errorResponse, json, parse, queryOf, readJson } from "./io";

/** `GET /sessions/{id}/open`'s query: the sessions host's state, which binds the ticket to its browser. */
const sessionOpenQuery = strictObject({ state: z.string().optional() }, "a session link's query");

/** Where the web app is, and where sessions are served (null: not configured, so not served). */
export interface SessionOrigins {
  app: string;
  sessions: string | null;
}

/**
 * A session's proxy path without its last slash: the path of the sessions host's cookies (which then
 * go with it and everything below it, and with no other session's), and where a browser lands. Next
 * answers a path ending in a slash with a redirect to the same path without it.
 */
export const proxyBase = (id: number): string => sessionProxyPath(id).replace(/\/$/, "");

/** The query parameter a ticket travels in, from the web app to the sessions host. */
export const TICKET_PARAM = "tranche-ticket";

export const NOT_SERVED =
  "Interactive sessions are not served here: they need a host name of their own, and TRANCHE_SESSIONS_ORIGIN is not set (see the admin guide); the SSH tunnel on the session's page still reaches it";

/** `GET /sessions/{id}/open`: the one route a signed-in browser may reach from another site (the sessions host). */
export const isSessionOpen = (method: string, parts: string[]): boolean =>
  method === "GET" && parts.length === 3 && parts[0] === "sessions" && parts[2] === "open";

/**
 * Interactive sessions over REST on the web app's own address (handler.ts routes the rest; null for
 * any other path):
 *
 *   POST /api/v1/sessions                 start one (`tranche session`, the "Start a session" button)
 *   POST /api/v1/jobs/{id}/extend         {"by": "1h"}: more protection, a new contract, charged
 *   GET  /api/v1/sessions/{id}/open       ?state=...: a ticket for the sessions host, for the owner only
 *   ANY  /api/v1/sessions/{id}/proxy/...  never served here: its owner is sent to the sessions host
 *
 * The session's content is served by the sessions host alone (sessions-host.ts): on this address its
 * scripts would run with the owner's login to Tranche.
 */
export async function handleSessionRest(
  req: Request,
  method: string,
  parts: string[],
  actor: Actor,
  prisma: PrismaClient,
  origins: SessionOrigins | undefined,
): Promise<Response | null> {
  const [head, id, tail] = parts;
  if (head === "sessions" && parts.length === 1 && method === "POST") {
    const input = parse(startSessionInput, await readJson(req));
    return json({ job: await startSession(prisma, actor, input) }, 201);
  }
  if (head === "jobs" && parts.length === 3 && tail === "extend" && method === "POST") {
    const body = (await readJson(req)) as Record<string, unknown> | null;
    const input = parse(extendSessionInput, { ...(body && typeof body === "object" ? body : {}), id });
    return json({ job: await extendSession(prisma, actor, input.id, input.by) });
  }
  if (isSessionOpen(method, parts)) {
    const jobId = parse(jobIdInput, { id }).id;
    const { state = "" } = parse(sessionOpenQuery, queryOf(req));
    if (!origins?.sessions) return errorResponse("UNAVAILABLE", NOT_SERVED);
    const ticket = await issueSessionTicket(prisma, actor, jobId, state);
    return redirect(`${origins.sessions}${proxyBase(jobId)}?${TICKET_PARAM}=${ticket}`);
  }
  if (head === "sessions" && parts.length >= 3 && tail === "proxy") {
    const jobId = parse(jobIdInput, { id }).id;
    await ownSession(prisma, actor, jobId);
    if (!origins?.sessions) return errorResponse("UNAVAILABLE", NOT_SERVED);
    // A link or bookmark to the old address still opens the session, on its own host.
    if (method === "GET" || method === "HEAD") {
      const url = new URL(req.url);
      return redirect(origins.sessions + url.pathname + url.search);
    }
    return errorResponse("FORBIDDEN", `Sessions are served at ${origins.sessions} only: send this request there`);
  }
  return null;
}

/** 303 to `location`; a ticket in it must not be cached or passed on as a referrer. */
export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store", "referrer-policy": "no-referrer" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}
