/**
 * A path whose percent-encoding is malformed (%E0%A4%A, a lone %): Next's route matcher throws while it
 * decodes a dynamic route's parameters and, failing to render a 400 page, answers a plain-text 500
 * "Internal Server Error". The front gate (front-gate.ts) answers it first, before any route: 400, in the
 * API's error shape under /api/ and in plain words elsewhere. Returns null for a path that decodes.
 */
export function badPathEncoding(pathname: string): Response | null {
  const bad = pathname.split("/").find((segment) => {
    try {
      decodeURIComponent(segment);
      return false;
    } catch {
      return true;
    }
  });
  if (bad === undefined) return null;
  const message = `The URL path segment '${bad.slice(0, 60)}' is not valid percent-encoding: each % starts %XX, and the bytes form UTF-8`;
  const headers = { "cache-control": "no-store" };
  if (pathname.startsWith("/api/"))
    return Response.json(
      { error: { code: "BAD_INPUT", message, issues: [{ path: "path", message }] } },
      { status: 400, headers },
    );
  return new Response(`${message}\n`, { status: 400, headers: { ...headers, "content-type": "text/plain; charset=utf-8" } });
}
