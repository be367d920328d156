import { sessionActor } from "../../../server/auth";
import { db } from "../../../server/db";
import { healthResponse } from "../../../server/health";
import { hasMetricsToken, monitoringAccessFromEnv } from "../../../server/monitoring-access";
import { apiRoute } from "../../../server/api-route";

export const dynamic = "force-dynamic";

// Details for operators and admins signed in, or a monitor with TRANCHE_METRICS_TOKEN; "ok" for the rest.
export const GET = apiRoute(async (req: Request) => {
  return healthResponse(db(), await mayReadDetails(req));
});

async function mayReadDetails(req: Request): Promise<boolean> {
  if (hasMetricsToken(req, monitoringAccessFromEnv())) return true;
  const actor = await sessionActor(req.headers).catch(() => null);
  return actor?.role === "ADMIN" || actor?.role === "OPERATOR";
}
