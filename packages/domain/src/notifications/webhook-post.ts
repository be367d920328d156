import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "./webhook-target";

/** A webhook POST that did not get an answer in time. */
export class WebhookTimeoutError extends Error {
  override name = "TimeoutError";
}

/**
 * A `lookup` that answers only the addresses the target check approved, so the connection goes where
 * the check looked (checkWebhookTarget). Node asks for all addresses when it races IPv4 and IPv6
 * (autoSelectFamily) and for one otherwise.
 */
function pinnedLookup(pinned: ResolvedAddress[]): LookupFunction {
  return (_host, options, callback) => {
    const family = typeof options === "object" && options.family ? Number(options.family) : 0;
    const fitting = family === 4 || family === 6 ? pinned.filter((a) => a.family === family) : pinned;
    const answers = fitting.length > 0 ? fitting : pinned;
    if (typeof options === "object" && options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, answers);
    else callback(null, answers[0]!.address, answers[0]!.family);
  };
}

/**
 * POSTs `body` as JSON to `url` and answers the HTTP status. It connects only to `pinned` when given
 * (the host's name still goes in the Host header and in TLS, so certificates are checked against the
 * name), follows no redirect (a 3xx is an answer like any other: a webhook may not bounce the request
 * to an address nobody checked), and reads no more of the answer than its status. `headers` go with it
 * (the signature's, webhook-signature.ts).
 */
export function postWebhook(
  url: string,
  body: string,
  opts: { timeoutMs: number; pinned: ResolvedAddress[] | null; headers?: Record<string, string> },
): Promise<number> {
  const u = new URL(url);
  const options: RequestOptions = {
    method: "POST",
    headers: {
      ...opts.headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      "user-agent": "tranche-notifications",
    },
    ...(opts.pinned !== null ? { lookup: pinnedLookup(opts.pinned) } : {}),
  };
  const send = u.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(u, options, (res) => {
      clearTimeout(timer);
      res.resume();
      res.on("error", () => undefined);
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    const timer = setTimeout(() => req.destroy(new WebhookTimeoutError(`no answer within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
}
