import { handleRest } from "@tranche/api/rest";
import { publicUrl } from "../../../../server/public-url";
import { servedOrigins } from "../../../../server/sessions-origin";
import { sessionActor } from "../../../../server/auth";
import { db } from "../../../../server/db";

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

export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE };
