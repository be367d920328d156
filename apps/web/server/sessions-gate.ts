import { addressedTo, isNavigation, proxiedSessionId } from "@tranche/contracts";

/**
 * The sessions host serves the session proxy and nothing else: not the app's pages or scripts, tRPC,
 * sign-in, the agent protocol, health or metrics. A session's scripts run on that host; whatever else
 * it answered would be theirs to call. Returns the answer to a request that must not go further, or null.
 */
export function sessionsHostRefusal(
  req: Pick<Request, "url" | "method" | "headers">,
  origins: { app: string; sessions: string | null },
): Response | null {
  if (!origins.sessions || !addressedTo(req.headers, origins.sessions)) return null;
  const url = new URL(req.url);
  if (proxiedSessionId(url.pathname) !== null) return null;
  // Someone who typed the sessions address (localhost for 127.0.0.1, say) wanted the app: a page goes there.
  if (isNavigation(req.headers, req.method) && !/^\/(api|_next)\//.test(url.pathname))
    return new Response(null, { status: 307, headers: { location: origins.app + url.pathname + url.search } });
  return new Response(`This address serves interactive sessions only; Tranche itself is at ${origins.app}\n`, {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
  });
}
