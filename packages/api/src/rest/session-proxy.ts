import { errorResponse, json } from "./io";

/** The most a request through the proxy may carry (uploads to a notebook included). */
export const PROXY_BODY_BYTES = 16 * 1024 * 1024;
/** A session's server that does not answer within this is reported as such (long commands included). */
const PROXY_TIMEOUT_MS = 90_000;

/** Request headers the proxy passes on: never the caller's cookie or credentials (the session gets its own token). */
const PASS_REQUEST = ["accept", "accept-language", "content-type", "if-none-match", "if-modified-since", "range"];
/** Response headers it passes back: no cookies (the server would set them on the sessions host for every session). */
const PASS_RESPONSE = ["content-type", "content-length", "etag", "last-modified", "location", "content-range", "accept-ranges"];

/**
 * Set on everything a session serves. Its pages run code Tranche does not control: they may frame one
 * another (Jupyter does) but nothing else may frame them; they keep no handle on the Tranche window
 * that opened them; no other site, the app included, may load them as a script, image or style; and
 * their addresses are not sent to the sites they link to.
 */
export const SESSION_RESPONSE_HEADERS: Record<string, string> = {
  "content-security-policy": "frame-ancestors 'self'",
  "x-frame-options": "SAMEORIGIN",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "same-origin",
};

/**
 * The bytes a request's body will hold in this process while it is forwarded: its declared length, or
 * the most a body may carry when it declares none (or more, which is refused before it is read).
 */
export function proxiedBodyBytes(req: Request, method: string): number {
  if (method === "GET" || method === "HEAD") return 0;
  const declared = Number(req.headers.get("content-length") ?? NaN);
  return Number.isInteger(declared) && declared >= 0 ? Math.min(declared, PROXY_BODY_BYTES) : PROXY_BODY_BYTES;
}

/** Forward one request to a session's server (sessionTarget) and its answer back. */
export async function forwardToSession(
  req: Request,
  method: string,
  target: { url: string; token: string; node: string },
): Promise<Response> {
  const url = new URL(req.url);
  const headers = new Headers();
  for (const h of PASS_REQUEST) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  headers.set("authorization", `token ${target.token}`);
  let body: ArrayBuffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    const tooLarge = () =>
      errorResponse("TOO_LARGE", `A request to a session carries at most ${PROXY_BODY_BYTES / 1024 / 1024} MiB`);
    // The declared length first, so a large upload is refused before it is read.
    if (Number(req.headers.get("content-length") ?? 0) > PROXY_BODY_BYTES) return tooLarge();
    body = await req.arrayBuffer();
    if (body.byteLength > PROXY_BODY_BYTES) return tooLarge();
  }
  let res: Response;
  try {
    // The path is passed whole (the servers know their prefix, TRANCHE_SESSION_BASE); redirects go back to the browser.
    res = await fetch(target.url + url.pathname + url.search, {
      method,
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(PROXY_TIMEOUT_MS),
    });
  } catch (e) {
    const why =
      (e as Error).name === "TimeoutError" ? "did not answer in time" : "does not answer (it may be starting or stopping)";
    return json(
      { error: { code: "UNAVAILABLE", message: `The session's server on ${target.node} ${why}; try again in a moment` } },
      502,
    );
  }
  const out = new Headers({ "cache-control": "no-store", ...SESSION_RESPONSE_HEADERS });
  // fetch decodes a compressed body (it asks for gzip) but keeps the compressed length: passed on, it
  // would cut the page short. Without a length the body goes chunked.
  const decoded = res.headers.has("content-encoding");
  for (const h of PASS_RESPONSE) {
    const v = res.headers.get(h);
    if (v !== null && !(decoded && h === "content-length")) out.set(h, v);
  }
  return new Response(method === "HEAD" ? null : res.body, { status: res.status, headers: out });
}
