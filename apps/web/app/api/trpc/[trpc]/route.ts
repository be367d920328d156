import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@tranche/api";
import { sessionActor } from "../../../../server/auth";
import { db } from "../../../../server/db";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: async () => ({ prisma: db(), user: await sessionActor(req.headers), origin: new URL(req.url).origin }),
  });
}

export { handler as GET, handler as POST };
