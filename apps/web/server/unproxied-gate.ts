import type { IncomingMessage, ServerResponse } from "node:http";
import { frontGate } from "./front-gate";
import { tapServerEvents } from "./server-events";

/** A request carries a body when it says so: HTTP/1.1 has no other way. */
function carriesBody(req: IncomingMessage): boolean {
  return req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
}

/**
 * The front gate for each request the proxy leaves out (proxy.ts: the API, and anything with a body,
 * so that Next never copies a body), in this process's HTTP server before Next: Next answers a path it
 * cannot decode under a dynamic API route with a 500 before any handler runs, and would render its own
 * pages on the sessions host (an unknown /api path, a page asked for with a body). Judged by the
 * request line and headers; a refused request's body is discarded as it arrives, never held. Installed
 * once per process from instrumentation.ts; until then (the first moments of a start) each API route
 * passes the gate itself (apiRoute).
 */
export function gateUnproxiedRequests(): void {
  tapServerEvents("unproxied gate", (event, args) => {
    if (event !== "request") return false;
    const [req, res] = args as [IncomingMessage, ServerResponse];
    const target = req.url ?? "/";
    if (!target.startsWith("/") || !(target.startsWith("/api/") || carriesBody(req))) return false;
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    // The origin is a placeholder: the gate reads the path, and the host from the headers.
    const answer = frontGate({ url: `http://front-gate.invalid${target}`, method: req.method ?? "GET", headers });
    if (!answer) return false;
    void send(answer, res);
    return true;
  });
}

async function send(answer: Response, res: ServerResponse): Promise<void> {
  const body = await answer.text();
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(body);
}
