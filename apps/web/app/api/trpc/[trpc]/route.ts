import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter, crossSiteRefusal } from "@tranche/api";
import { publicUrl } from "../../../../server/auth-options";
import { sessionActor } from "../../../../server/auth";
import { db } from "../../../../server/db";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  // The web app's own pages are the only callers with a cookie: refuse what another site makes a browser send.
  const refusal = req.headers.has("cookie") ? crossSiteRefusal(req, [publicUrl()]) : null;
  if (refusal) return Response.json({ error: { code: "FORBIDDEN", message: refusal } }, { status: 403 });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ prisma: db(), user: await sessionActor(req.headers), origin: new URL(req.url).origin }),
  });
}

export { handler as GET, handler as POST };
