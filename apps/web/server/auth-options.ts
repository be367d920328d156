import { prismaAdapter } from "better-auth/adapters/prisma";
import type { BetterAuthOptions, BetterAuthPlugin } from "better-auth";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { PrismaClient } from "@tranche/db";
import { endSessionGrants } from "@tranche/domain";
import { publicUrl } from "./public-url";
import { sessionsOriginOrNull } from "./sessions-origin";
import { hashedSessionTokens } from "./session-token-hash";
import { userNameHooks } from "./user-names";

type Env = Record<string, string | undefined>;

/** Optional single sign-on: set TRANCHE_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET (and _NAME for the button). */
export function oidcConfig(env: Env = process.env): { providerId: string; name: string } | null {
  if (!env.TRANCHE_OIDC_ISSUER || !env.TRANCHE_OIDC_CLIENT_ID || !env.TRANCHE_OIDC_CLIENT_SECRET) return null;
  return { providerId: "oidc", name: env.TRANCHE_OIDC_NAME ?? "SSO" };
}

/**
 * May a first single sign-on sign in to the existing local account with the same e-mail? Only when the
 * admin trusts the provider (TRANCHE_OIDC_LINK_EXISTING=1) and it says the e-mail is verified: else
 * whoever holds that address at the provider (or a provider that checks no addresses) would take over
 * the local account, an admin's included. better-auth's own "trusted provider" means the opposite (link
 * even an unverified e-mail), so the provider is never put on its list.
 */
export function accountLinking(env: Env = process.env) {
  const trusted = env.TRANCHE_OIDC_LINK_EXISTING === "1";
  return {
    enabled: true,
    disableImplicitLinking: !trusted,
    trustedProviders: [] as string[],
    // Without self sign-up every local account was made by an admin (or the command line), so its
    // e-mail is the admin's word; with it, a stranger may have registered someone else's address.
    requireLocalEmailVerified: env.TRANCHE_ALLOW_SIGNUP === "1",
  };
}

export { publicUrl } from "./public-url";

/**
 * better-auth's options, apart from the web framework's own plugin (auth.ts adds nextCookies), so a
 * test builds the same sign-in as the app.
 */
export function authOptions(
  prisma: PrismaClient,
  secret: string,
  env: Env = process.env,
  plugins: BetterAuthPlugin[] = [],
  databaseHooks?: BetterAuthOptions["databaseHooks"],
) {
  const baseURL = publicUrl(env);
  const oidc = oidcConfig(env);
  return {
    appName: "Tranche",
    baseURL,
    secret,
    // The app also answers on localhost, unless that is the sessions host (by default it is: sessions-origin.ts).
    trustedOrigins: [baseURL, baseURL.replace("127.0.0.1", "localhost")].filter((o) => o !== sessionsOriginOrNull(env)),
    // The session row keeps sha256 of its token, never the token a cookie carries (session-token-hash.ts).
    database: hashedSessionTokens(prismaAdapter(prisma, { provider: "postgresql" })),
    emailAndPassword: { enabled: true, disableSignUp: env.TRANCHE_ALLOW_SIGNUP !== "1", minPasswordLength: 8 },
    // No cookie cache: every request reads the session row, so a signed-out (or revoked) session is
    // refused at once instead of living on in a signed cookie for its cache time.
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24, cookieCache: { enabled: false } },
    account: { accountLinking: accountLinking(env) },
    // An SSO sign-in that fails (e.g. an e-mail already used here) comes back to the sign-in page,
    // which says what to do (sso-errors.ts), instead of better-auth's own error page.
    onAPIError: { errorURL: `${baseURL}/login` },
    // Only admins rename people (REST, tRPC, CLI): better-auth's own update-user let anyone set any
    // name, of any length (a 200 KB one halted scheduling) or someone else's ("Alex Admin"). No page uses it.
    disabledPaths: ["/update-user"],
    user: { additionalFields: { role: { type: "string", required: false, defaultValue: "RESEARCHER", input: false } } },
    advanced: {
      database: { generateId: false },
      // Served over https: Secure cookies (better-auth would guess the same from the URL; say it).
      useSecureCookies: baseURL.startsWith("https://"),
      // The sign-in route puts the real client address here (sign-in-guard.ts), never a client's header.
      ipAddress: { ipAddressHeaders: ["x-tranche-client-address"] },
    },
    telemetry: { enabled: false },
    // First single sign-on: the admin's OIDC mapping rules give the new user a role and budgets (auth.ts).
    // A login session's end (sign-out, revocation) ends its user's cookies of the sessions host.
    // Every name better-auth writes (self sign-up, a first single sign-on) fits contracts' personName
    // (user-names.ts); these replace any user before-hooks given, of which there are none.
    databaseHooks: {
      ...databaseHooks,
      user: {
        ...databaseHooks?.user,
        create: { ...databaseHooks?.user?.create, before: userNameHooks.create.before },
        update: { ...databaseHooks?.user?.update, before: userNameHooks.update.before },
      },
      session: {
        ...databaseHooks?.session,
        delete: {
          ...databaseHooks?.session?.delete,
          after: async (session, context) => {
            await endSessionGrants(prisma, session.userId);
            await databaseHooks?.session?.delete?.after?.(session, context);
          },
        },
      },
    },
    // Password sign-ins are limited by failures per account and per address (sign-in-guard.ts);
    // better-auth's own limit (3 attempts per 10 s) keeps guarding its other endpoints.
    rateLimit: { enabled: env.TRANCHE_AUTH_RATE_LIMIT !== "off", customRules: { "/sign-in/email": false as const } },
    plugins: [
      ...(oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: oidc.providerId,
                  clientId: env.TRANCHE_OIDC_CLIENT_ID!,
                  clientSecret: env.TRANCHE_OIDC_CLIENT_SECRET!,
                  discoveryUrl: `${env.TRANCHE_OIDC_ISSUER!.replace(/\/$/, "")}/.well-known/openid-configuration`,
                  scopes: ["openid", "email", "profile"],
                },
              ],
            }),
          ]
        : []),
      ...plugins,
    ],
  } satisfies BetterAuthOptions;
}
