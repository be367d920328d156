import { signInLimitsFromEnv } from "@tranche/domain";
import { auth } from "../../../../server/auth";
import { parseTrustedProxies } from "../../../../server/client-address";
import { db } from "../../../../server/db";
import { handleAuthRequest, type AuthRouteDeps } from "../../../../server/sign-in-guard";

export const dynamic = "force-dynamic";

let deps: AuthRouteDeps | undefined;
function routeDeps(): AuthRouteDeps {
  return (deps ??= {
    handler: (req) => auth().handler(req),
    prisma: db(),
    limits: signInLimitsFromEnv(),
    trustedProxies: parseTrustedProxies(process.env.TRANCHE_TRUSTED_PROXIES),
  });
}

export async function GET(req: Request) {
  return handleAuthRequest(req, routeDeps());
}
export async function POST(req: Request) {
  return handleAuthRequest(req, routeDeps());
}
