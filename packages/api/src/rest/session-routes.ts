import type { PrismaClient } from "@tranche/db";
import { extendSessionInput, jobIdInput, startSessionInput } from "@tranche/contracts";
import { extendSession, sessionTarget, startSession, type Actor } from "@tranche/domain";
import { errorResponse, json, parse, readJson } from "./io";

/** The most a request through the proxy may carry (uploads to a notebook included). */
const PROXY_BODY_BYTES = 16 * 1024 * 1024;
/** A session's server that does not answer within this is reported as such (long commands included). */
const PROXY_TIMEOUT_MS = 90_000;

/** Request headers the proxy passes on: never the caller's cookie or credentials (the session gets its own token). */
const PASS_REQUEST = ["accept", "accept-language", "content-type", "if-none-match", "if-modified-since", "range"];
/** Response headers it passes back: no cookies (the server would set them on Tranche's own site). */
const PASS_RESPONSE = ["content-type", "content-length", "etag", "last-modified", "location", "content-range", "accept-ranges"];

/**
 * Interactive sessions over REST (handler.ts routes the rest; null for any other path):
 *
 *   POST /api/v1/sessions                 start one (`tranche session`, the "Start a session" button)
 *   POST /api/v1/jobs/{id}/extend         {"by": "1h"}: more protection, a new contract, charged
 *   ANY  /api/v1/sessions/{id}/proxy/...  the session's server, for its owner only (404 for anyone else)
 */
export async function handleSessionRest(
  req: Request,
  method: string,
  parts: string[],
  actor: Actor,
  prisma: PrismaClient,
): Promise<Response | null> {
  const [head, id, tail] = parts;
  if (head === "sessions" && parts.length === 1 && method === "POST") {
    const input = parse(startSessionInput, await readJson(req));
    return json({ job: await startSession(prisma, actor, input) }, 201);
  }
  if (head === "jobs" && parts.length === 3 && tail === "extend" && method === "POST") {
    const body = (await readJson(req)) as Record<string, unknown> | null;
    const input = parse(extendSessionInput, { ...(body && typeof body === "object" ? body : {}), id });
    return json({ job: await extendSession(prisma, actor, input.id, input.by) });
  }
  if (head === "sessions" && parts.length >= 3 && tail === "proxy") {
    const jobId = parse(jobIdInput, { id }).id;
    return proxy(req, method, await sessionTarget(prisma, actor, jobId));
  }
  return null;
}

async function proxy(req: Request, method: string, target: { url: string; token: string; node: string }): Promise<Response> {
  const url = new URL(req.url);
  const headers = new Headers();
  for (const h of PASS_REQUEST) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  headers.set("authorization", `token ${target.token}`);
  let body: ArrayBuffer | undefined;
  if (method !== "GET" && method !== "HEAD") {
    if (Number(req.headers.get("content-length") ?? 0) > PROXY_BODY_BYTES)
      return errorResponse("TOO_LARGE", `A request to a session carries at most ${PROXY_BODY_BYTES / 1024 / 1024} MiB`);
    body = await req.arrayBuffer();
    if (body.byteLength > PROXY_BODY_BYTES)
      return errorResponse("TOO_LARGE", `A request to a session carries at most ${PROXY_BODY_BYTES / 1024 / 1024} MiB`);
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
  const out = new Headers({ "cache-control": "no-store" });
  for (const h of PASS_RESPONSE) {
    const v = res.headers.get(h);
    if (v !== null) out.set(h, v);
  }
  return new Response(method === "HEAD" ? null : res.body, { status: res.status, headers: out });
}
