import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { Actor, Role } from "@tranche/domain";
import { db } from "./db";
import { mapNewOidcAccount } from "./oidc-mapping";

/** Repo root: the nearest folder above the working directory holding turbo.json. */
function repoRoot(): string {
  let dir = process.cwd();
  for (let i = 0; i < 8; i++) {
    if (existsSync(join(dir, "turbo.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return process.cwd();
}

/**
 * The session-signing secret: BETTER_AUTH_SECRET when set (production), else a random one created
 * once in .data/auth-secret (mode 600) so a local `npm start` keeps sessions across restarts.
 */
function authSecret(): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv && fromEnv.length >= 32) return fromEnv;
  const file = join(repoRoot(), ".data", "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/** Optional single sign-on: set TRANCHE_OIDC_ISSUER, _CLIENT_ID, _CLIENT_SECRET (and _NAME for the button). */
export function oidcConfig(): { providerId: string; name: string } | null {
  const e = process.env;
  if (!e.TRANCHE_OIDC_ISSUER || !e.TRANCHE_OIDC_CLIENT_ID || !e.TRANCHE_OIDC_CLIENT_SECRET) return null;
  return { providerId: "oidc", name: e.TRANCHE_OIDC_NAME ?? "SSO" };
}

function createAuth() {
  const e = process.env;
  const baseURL = e.TRANCHE_PUBLIC_URL ?? e.BETTER_AUTH_URL ?? "http://127.0.0.1:3000";
  const oidc = oidcConfig();
  return betterAuth({
    appName: "Tranche",
    baseURL,
    secret: authSecret(),
    trustedOrigins: [baseURL, baseURL.replace("127.0.0.1", "localhost")],
    database: prismaAdapter(db(), { provider: "postgresql" }),
    emailAndPassword: { enabled: true, disableSignUp: e.TRANCHE_ALLOW_SIGNUP !== "1", minPasswordLength: 8 },
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24, cookieCache: { enabled: true, maxAge: 60 } },
    user: { additionalFields: { role: { type: "string", required: false, defaultValue: "RESEARCHER", input: false } } },
    advanced: { database: { generateId: false } },
    telemetry: { enabled: false },
    // First single sign-on: the admin's OIDC mapping rules give the new user a role and budgets.
    databaseHooks: { account: { create: { after: (account) => mapNewOidcAccount(account) } } },
    // better-auth limits sign-ins per IP (3 per 10 s in production), a sound default for a lab's web app.
    // The e2e stack signs in as many users from one address within seconds, so it turns the limit off.
    rateLimit: { enabled: e.TRANCHE_AUTH_RATE_LIMIT !== "off" },
    plugins: [
      nextCookies(),
      ...(oidc
        ? [
            genericOAuth({
              config: [
                {
                  providerId: oidc.providerId,
                  clientId: e.TRANCHE_OIDC_CLIENT_ID!,
                  clientSecret: e.TRANCHE_OIDC_CLIENT_SECRET!,
                  discoveryUrl: `${e.TRANCHE_OIDC_ISSUER!.replace(/\/$/, "")}/.well-known/openid-configuration`,
                  scopes: ["openid", "email", "profile"],
                },
              ],
            }),
          ]
        : []),
    ],
  });
}

const g = globalThis as unknown as { trancheAuth?: ReturnType<typeof createAuth> };
export function auth(): ReturnType<typeof createAuth> {
  return (g.trancheAuth ??= createAuth());
}

/**
 * The signed-in user for a request (cookie session), or null. The user row is read afresh on every
 * request (the session cookie caches the user for a minute), so a disabled user is signed out and a
 * changed role applies at once.
 */
export async function sessionActor(headers: Headers): Promise<Actor | null> {
  const s = await auth().api.getSession({ headers });
  if (!s) return null;
  const u = await db().user.findUnique({
    where: { id: s.user.id },
    select: { id: true, email: true, name: true, role: true, disabledAt: true },
  });
  if (!u || u.disabledAt) return null;
  return { id: u.id, email: u.email, name: u.name, role: u.role as Role };
}
