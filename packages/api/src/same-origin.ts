/**
 * Cross-site request forgery guard for cookie sessions. A browser attaches the session cookie to any
 * request to this site, even one a page elsewhere makes, but it also says where the request comes
 * from (Sec-Fetch-Site, Origin) and a page cannot forge those. So a cookie-authenticated request that
 * changes something must show it comes from Tranche's own pages, as a JSON body (a cross-site form or
 * a `text/plain` fetch cannot send one without asking first). Reads are refused only when the browser
 * says they are cross-site. Bearer tokens are not cookies, so this never applies to them.
 * Returns why the request is refused, or null.
 */
export function crossSiteRefusal(req: Request, allowedOrigins: readonly string[] = []): string | null {
  const site = req.headers.get("sec-fetch-site");
  const origin = req.headers.get("origin");
  const own = new Set([new URL(req.url).origin, ...allowedOrigins.map((o) => new URL(o).origin)]);
  const foreignOrigin = origin !== null && !own.has(origin);
  const where = origin ? `from ${origin}` : "from another site";
  const advice = "scripts send 'Authorization: Bearer <token>' instead of a browser's cookie";
  if (site === "cross-site" || site === "same-site" || foreignOrigin)
    return `A signed-in browser session may call Tranche only from Tranche's own pages, not ${where}; ${advice}`;
  const method = req.method.toUpperCase();
  if (method === "GET" || method === "HEAD") return null;
  if (site !== "same-origin" && origin === null)
    return `A request that changes something with a browser session must carry its Origin (or Sec-Fetch-Site); ${advice}`;
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  // Browsers send a content type with every body (a string body is text/plain), so none means no body.
  if (type && type !== "application/json")
    return `A request that changes something with a browser session must send its body as application/json, not ${type || "without a content type"}`;
  return null;
}
