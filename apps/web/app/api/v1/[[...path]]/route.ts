import { handleRest } from "@tranche/api/rest";
import { publicUrl } from "../../../../server/public-url";
import { servedOrigins } from "../../../../server/sessions-origin";
import { sessionActor } from "../../../../server/auth";
import { db } from "../../../../server/db";
import { apiRoute } from "../../../../server/api-route";

export const dynamic = "force-dynamic";

async function handler(req: Request, ctx: { params: Promise<{ path?: string[] }> }) {
  const { path = [] } = await ctx.params;
  return handleRest(req, "/" + path.join("/"), {
    prisma: db(),
    sessionUser: (r) => sessionActor(r.headers),
    allowedOrigins: [publicUrl()],
    origins: servedOrigins(),
  });
}

const gated = apiRoute(handler);
export { gated as GET, gated as POST, gated as PUT, gated as PATCH, gated as DELETE };
