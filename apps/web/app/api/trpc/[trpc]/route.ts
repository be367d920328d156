import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@tranche/api";
import { db } from "../../../../server/db";

export const dynamic = "force-dynamic";

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => ({ prisma: db(), user: null }),
  });
}

export { handler as GET, handler as POST };
