import { frontGate } from "./front-gate";

/**
 * Every route handler under app/api is wrapped in this: the front gate (front-gate.ts) before the
 * handler. The proxy does not run for /api (Next would copy each body for it, up to 10 MB, held until
 * the request ends). The server passes API requests through the gate before Next (unproxied-gate.ts),
 * but only from when instrumentation has run: a request in the first moments of a start, or a handler
 * called some other way, still meets the gate here. A handler reads its body itself, bounded, and
 * where the body can be large only once it knows the caller.
 */
export function apiRoute<A extends unknown[]>(
  handler: (req: Request, ...rest: A) => Promise<Response>,
): (req: Request, ...rest: A) => Promise<Response> {
  return async (req, ...rest) => frontGate(req) ?? handler(req, ...rest);
}
