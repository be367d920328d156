import { readBodyText } from "@tranche/contracts";

/**
 * The request with its body read up front, at most `limit` bytes, for a handler that would read it
 * whole however long it is (tRPC); null when it is larger (reading stopped at the limit). A body is
 * never cut short and handed on as if it were whole.
 */
export async function withBoundedBody(req: Request, limit: number): Promise<Request | null> {
  if (req.method === "GET" || req.method === "HEAD" || !req.body) return req;
  const text = await readBodyText(req, limit);
  if (text === null) return null;
  return new Request(req.url, { method: req.method, headers: req.headers, body: text, signal: req.signal });
}
