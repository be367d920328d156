import { badPathEncoding } from "./bad-path";
import { sessionsHostRefusal } from "./sessions-gate";
import { servedOrigins } from "./sessions-origin";

type RequestHead = Pick<Request, "url" | "method" | "headers">;

/**
 * What every request passes before a page or an API route sees it, judged by its URL and headers alone:
 * a path Next could not decode is a 400, and the sessions host serves the session proxy and nothing
 * else. Returns the answer to a request that must not go further, or null. Called by the proxy for the
 * requests it runs for, by the server before Next for the rest (unproxied-gate.ts), and by each API
 * route (apiRoute).
 */
export function frontGate(req: RequestHead, origins = servedOrigins()): Response | null {
  return badPathEncoding(new URL(req.url).pathname) ?? sessionsHostRefusal(req, origins);
}
