/**
 * Interactive sessions are served from a host of their own (TRANCHE_SESSIONS_ORIGIN), never from the
 * web app's: a session serves its owner's code and whatever its notebooks load, and on the app's
 * origin those scripts would act with the owner's login. These say which side a request reached; the
 * web app's front gate (apps/web/proxy.ts) and the REST handler both ask.
 */

/** The session a path of the proxy belongs to (`/api/v1/sessions/12/proxy` and below), or null. */
export function proxiedSessionId(pathname: string): number | null {
  const m = /^\/api\/v1\/sessions\/([1-9]\d{0,9})\/proxy(?:\/|$)/.exec(pathname);
  return m ? Number(m[1]) : null;
}

/**
 * Whether a request was addressed to `origin`'s host: its Host header, or the X-Forwarded-Host a
 * reverse proxy sets. (`next start` builds request URLs from the address it listens on, so the URL
 * cannot tell.) Any of them naming the sessions host is enough, so no header makes it serve the app:
 * every entry of X-Forwarded-Host counts, since a proxy that appends to it keeps a client's own first
 * ("app, sessions" from a session's script behind such a proxy is still the sessions host).
 */
export function addressedTo(headers: Headers, origin: string): boolean {
  const want = new URL(origin);
  const named = [headers.get("host"), ...(headers.get("x-forwarded-host")?.split(",") ?? [])];
  return named.some((h) => !!h && hostOf(h.trim(), want.protocol) === want.host);
}

function hostOf(value: string, protocol: string): string | null {
  try {
    // Parsed as a URL of the origin's scheme, so "host:443" and "host" compare equal under https.
    return new URL(`${protocol}//${value}`).host;
  } catch {
    return null;
  }
}

/** A browser opening a page: its Sec-Fetch-Mode, or the Accept of a browser too old to send one. */
export function isNavigation(headers: Headers, method: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  const mode = headers.get("sec-fetch-mode");
  return mode === null ? (headers.get("accept") ?? "").includes("text/html") : mode === "navigate";
}
