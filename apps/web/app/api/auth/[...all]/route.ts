import { DATABASE_RETRY_AFTER_SEC, DATABASE_UNAVAILABLE_SENTENCE, isDatabaseUnavailable } from "@tranche/db";
import { signInLimitsFromEnv } from "@tranche/domain";
import { auth, authSecret } from "../../../../server/auth";
import { parseTrustedProxies } from "../../../../server/client-address";
import { db } from "../../../../server/db";
import { deviceCookies } from "../../../../server/device-cookie";
import { publicUrl } from "../../../../server/public-url";
import { handleAuthRequest, type AuthRouteDeps } from "../../../../server/sign-in-guard";
import { apiRoute } from "../../../../server/api-route";

export const dynamic = "force-dynamic";

let deps: AuthRouteDeps | undefined;
function routeDeps(): AuthRouteDeps {
  return (deps ??= {
    handler: (req) => auth().handler(req),
    prisma: db(),
    limits: signInLimitsFromEnv(),
    trustedProxies: parseTrustedProxies(process.env.TRANCHE_TRUSTED_PROXIES),
    deviceCookies: deviceCookies(authSecret(), publicUrl()),
  });
}

/** Sign-in while the database is away: 503 with Retry-After, like every other route. */
async function handle(req: Request): Promise<Response> {
  try {
    return await handleAuthRequest(req, routeDeps());
  } catch (e) {
    if (!isDatabaseUnavailable(e)) throw e;
    return Response.json(
      { error: { code: "UNAVAILABLE", message: DATABASE_UNAVAILABLE_SENTENCE } },
      { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SEC), "cache-control": "no-store" } },
    );
  }
}

export const GET = apiRoute(handle);
export const POST = apiRoute(handle);
