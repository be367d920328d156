import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, crossSiteRefusal, trpcResponseMeta } from "@tranche/api";
import { DATABASE_UNAVAILABLE_SENTENCE, isDatabaseUnavailable } from "@tranche/db";
import { formatBytes, LIMITS } from "@tranche/contracts";
import { TRPCError } from "@trpc/server";
import { publicUrl } from "../../../../server/auth-options";
import { sessionActor } from "../../../../server/auth";
import { db } from "../../../../server/db";

export const dynamic = "force-dynamic";

/** The session's user; the database away is a 503 (as in every procedure), not a failure of the server. */
async function signedInUser(req: Request) {
  try {
    return await sessionActor(req.headers);
  } catch (e) {
    if (isDatabaseUnavailable(e)) throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_UNAVAILABLE_SENTENCE });
    throw e;
  }
}

/** The largest tRPC body (the REST batch's): past it a 413 that says so, not a JSON error from a body cut short. */
const TRPC_BODY_BYTES = LIMITS.batchRequestBytes;

function handler(req: Request) {
  // The web app's own pages are the only callers with a cookie: refuse what another site makes a browser send.
  const refusal = req.headers.has("cookie") ? crossSiteRefusal(req, [publicUrl()]) : null;
  if (refusal) return Response.json({ error: { code: "FORBIDDEN", message: refusal } }, { status: 403 });
  const length = Number(req.headers.get("content-length") ?? 0);
  if (length > TRPC_BODY_BYTES)
    return Response.json(
      {
        error: {
          code: "PAYLOAD_TOO_LARGE",
          message: `The request body is larger than ${formatBytes(TRPC_BODY_BYTES)}, the most this endpoint takes; nothing was stored`,
        },
      },
      { status: 413 },
    );
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ prisma: db(), user: await signedInUser(req), origin: new URL(req.url).origin }),
    responseMeta: trpcResponseMeta,
  });
}

export { handler as GET, handler as POST };
