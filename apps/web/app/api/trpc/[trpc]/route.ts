import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, crossSiteRefusal, enterCalls, TooManyRequests, trpcResponseMeta, type Context } from "@tranche/api";
import { DATABASE_UNAVAILABLE_SENTENCE, isDatabaseUnavailable } from "@tranche/db";
import { formatBytes, LIMITS } from "@tranche/contracts";
import { TRPCError } from "@trpc/server";
import { publicUrl } from "../../../../server/auth-options";
import { signedInSession } from "../../../../server/auth";
import { db } from "../../../../server/db";
import { withBoundedBody } from "../../../../server/bounded-body";
import { apiRoute } from "../../../../server/api-route";

export const dynamic = "force-dynamic";

/** The session's user and id; the database away is a 503 (as in every procedure), not a failure of the server. */
async function signedInUser(req: Request) {
  try {
    return await signedInSession(req.headers, { seen: true });
  } catch (e) {
    if (isDatabaseUnavailable(e)) throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNAVAILABLE_SENTENCE });
    throw e;
  }
}

/** The largest tRPC body (the REST batch's): past it a 413 that says so, not a JSON error from a body cut short. */
const TRPC_BODY_BYTES = LIMITS.batchRequestBytes;

function tooLarge(limit: number): Response {
  return Response.json(
    {
      error: {
        code: "PAYLOAD_TOO_LARGE",
        message: `The request body is larger than ${formatBytes(limit)}, the most this endpoint takes; nothing was stored`,
      },
    },
    { status: 413 },
  );
}

/** How many procedures a request calls: a batch names them in its path, comma-separated. */
function callsIn(req: Request): number {
  const path = new URL(req.url).pathname.replace(/^\/api\/trpc\/?/, "");
  return path === "" ? 1 : path.split(",").length;
}

async function handler(req: Request) {
  // The web app's own pages are the only callers with a cookie: refuse what another site makes a browser send.
  const refusal = req.headers.has("cookie") ? crossSiteRefusal(req, [publicUrl()]) : null;
  if (refusal) return Response.json({ error: { code: "FORBIDDEN", message: refusal } }, { status: 403 });
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > TRPC_BODY_BYTES) return tooLarge(TRPC_BODY_BYTES);
  // A person's calls in flight are bounded (request-gate.ts); a batch past LIMITS.trpcBatchCalls is a 400 (tRPC's).
  let context: () => Promise<Context>;
  let leave = () => {};
  let signedIn = false;
  try {
    const session = await signedInUser(req);
    const user = session?.actor ?? null;
    signedIn = user !== null;
    const calls = callsIn(req);
    if (user && calls <= LIMITS.trpcBatchCalls) leave = enterCalls(user.id, calls);
    const sessionId = session?.sessionId ?? null;
    context = async () => ({ prisma: db(), user, sessionId, origin: new URL(req.url).origin });
  } catch (e) {
    if (e instanceof TooManyRequests)
      return Response.json(
        { error: { code: "TOO_MANY_REQUESTS", message: e.message } },
        { status: 429, headers: { "retry-after": String(e.retryAfterSec) } },
      );
    // Each call answers what failed (the database away: a 503 with Retry-After), as in the context.
    context = () => Promise.reject(e);
  }
  try {
    // tRPC reads a body whole: read it here first, bounded, so one sent without a length stops at the
    // limit too. Signed out, a caller can only set a password from an invitation: a few hundred bytes.
    const limit = signedIn ? TRPC_BODY_BYTES : LIMITS.signedOutRequestBytes;
    const bounded = await withBoundedBody(req, limit);
    if (!bounded) return tooLarge(limit);
    return await fetchRequestHandler({
      endpoint: "/api/trpc",
      req: bounded,
      router: appRouter,
      maxBatchSize: LIMITS.trpcBatchCalls,
      createContext: context,
      responseMeta: trpcResponseMeta,
    });
  } finally {
    leave();
  }
}

const gated = apiRoute(handler);
export { gated as GET, gated as POST };
