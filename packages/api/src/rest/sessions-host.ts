import type { PrismaClient } from "@tranche/db";
import { isNavigation, proxiedSessionId } from "@tranche/contracts";
import {
  SESSION_GRANT_TTL_SEC,
  newHandoffState,
  readSessionGrant,
  redeemSessionTicket,
  sessionTarget,
  type Actor,
} from "@tranche/domain";
import { bearerActor } from "./bearer";
import { readCookie, setCookie } from "./cookies";
import { errorResponse } from "./io";
import { enterSessionRequest } from "../request-gate";
import { forwardToSession, proxiedBodyBytes } from "./session-proxy";
import { TICKET_PARAM, proxyBase, redirect } from "./session-routes";

/** The sessions host's own sign-in for one session (its Path is that session's proxy path, proxyBase). */
export const GRANT_COOKIE = "tranche-session";
/** A hand-off in progress: its state, then where the browser was going. */
export const HANDOFF_COOKIE = "tranche-handoff";

/**
 * Everything the sessions host (TRANCHE_SESSIONS_ORIGIN) answers: the proxy of one session, for its
 * owner. Any other path is not found here. The owner is known by the host's own cookie (never the web
 * app's login, which this host must not see), or by an API token for scripts; a browser without the
 * cookie is handed over to the web app and back (session-handoff.ts).
 */
export async function serveSessionsHost(
  req: Request,
  method: string,
  prisma: PrismaClient,
  origins: { app: string; sessions: string },
): Promise<Response> {
  const url = new URL(req.url);
  const id = proxiedSessionId(url.pathname);
  if (id === null)
    return errorResponse("NOT_FOUND", `This address serves interactive sessions only; Tranche itself is at ${origins.app}`);
  const path = proxyBase(id);
  const secure = origins.sessions.startsWith("https:");
  const ticket = url.searchParams.get(TICKET_PARAM);
  if (ticket !== null) {
    const handoff = readCookie(req.headers, HANDOFF_COOKIE);
    const [state, next] = handoff ? splitHandoff(handoff) : [null, null];
    const { grant } = await redeemSessionTicket(prisma, { ticket, state, jobId: id });
    // Back to where the browser was going, without the ticket in its address bar or history.
    const to = next && proxiedSessionId(next) === id && !next.includes(TICKET_PARAM) ? next : path;
    return redirect(origins.sessions + to, [
      setCookie(GRANT_COOKIE, grant, { path, maxAge: SESSION_GRANT_TTL_SEC, secure }),
      setCookie(HANDOFF_COOKIE, "", { path, maxAge: 0, secure }),
    ]);
  }
  let actor: Actor;
  const header = req.headers.get("authorization");
  if (header) {
    const a = await bearerActor(prisma, header);
    if (a instanceof Response) return a;
    actor = a;
  } else {
    const cookie = readCookie(req.headers, GRANT_COOKIE);
    const g = cookie ? await readSessionGrant(prisma, cookie, id) : ({ refused: "unknown" } as const);
    if ("refused" in g) {
      if (g.refused === "disabled") return errorResponse("FORBIDDEN", "Your account is disabled; ask an admin to enable it");
      // A script or a page's fetch gets 401, not a redirect it cannot follow.
      if (!isNavigation(req.headers, method))
        return errorResponse(
          "UNAUTHORIZED",
          `Open session ${id} from its page in Tranche first (scripts send 'Authorization: Bearer <token>')`,
        );
      return startHandoff(id, url, origins, secure);
    }
    const refusal = foreignRefusal(req, method, origins.sessions);
    if (refusal) return errorResponse("FORBIDDEN", refusal);
    actor = g.actor;
  }
  // Counted until the answer's headers are back: a session's server is its owner's code, and may not answer.
  const leave = enterSessionRequest(actor.id, proxiedBodyBytes(req, method));
  try {
    return await forwardToSession(req, method, await sessionTarget(prisma, actor, id));
  } finally {
    leave();
  }
}

/** Send the browser to the web app for a ticket, remembering its state and where it was going. */
function startHandoff(id: number, url: URL, origins: { app: string }, secure: boolean): Response {
  const state = newHandoffState();
  const next = Buffer.from(url.pathname + url.search, "utf8").toString("base64url");
  // Long enough for a sign-in on the way (the app's login page) before the ticket comes back.
  const cookie = setCookie(HANDOFF_COOKIE, `${state}.${next}`, { path: proxyBase(id), maxAge: 600, secure });
  return redirect(`${origins.app}/api/v1/sessions/${id}/open?state=${state}`, [cookie]);
}

function splitHandoff(value: string): [string, string | null] {
  const dot = value.indexOf(".");
  if (dot < 0) return [value, null];
  return [value.slice(0, dot), Buffer.from(value.slice(dot + 1), "base64url").toString("utf8")];
}

/**
 * A change sent with the host's cookie must come from the host's own pages: the cookie is SameSite=Lax,
 * which keeps it home on other sites' posts but not on a sibling host's (sessions.lab.example and
 * tranche.lab.example are one site).
 */
function foreignRefusal(req: Request, method: string, sessions: string): string | null {
  if (method === "GET" || method === "HEAD") return null;
  const site = req.headers.get("sec-fetch-site");
  const origin = req.headers.get("origin");
  if (site === "cross-site" || site === "same-site" || (origin !== null && origin !== sessions))
    return `A session takes changes only from its own pages, not ${origin ? `from ${origin}` : "from another site"}`;
  return null;
}
