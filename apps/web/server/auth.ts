import "server-only";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { betterAuth } from "better-auth";
import { nextCookies } from "better-auth/next-js";
import { touchSignInSession, type Actor, type Role } from "@tranche/domain";
import { authOptions } from "./auth-options";
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
 * once in .data/auth-secret (mode 600) so a local `npm start` keeps sessions across restarts. It also
 * keys the device cookies of password sign-in (device-cookie.ts).
 */
export function authSecret(): string {
  const fromEnv = process.env.BETTER_AUTH_SECRET;
  if (fromEnv && fromEnv.length >= 32) return fromEnv;
  const file = join(repoRoot(), ".data", "auth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

export { oidcConfig } from "./auth-options";

function createAuth() {
  return betterAuth(
    authOptions(db(), authSecret(), process.env, [nextCookies()], {
      account: { create: { after: (account) => mapNewOidcAccount(account) } },
    }),
  );
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
  return (await signedInSession(headers))?.actor ?? null;
}

/**
 * Sessions this process marked seen, and when (ms): the database keeps a session's last-seen time to
 * the minute (touchSignInSession), so a page's several requests within it need not each ask it again.
 * Forgotten whole when large; the next touch of each session then asks the database once more.
 */
const touchedAt = new Map<string, number>();
function touchDue(sessionId: string, now = Date.now()): boolean {
  const last = touchedAt.get(sessionId);
  if (last !== undefined && now - last < 60_000) return false;
  if (touchedAt.size >= 10_000) touchedAt.clear();
  touchedAt.set(sessionId, now);
  return true;
}

/**
 * The signed-in user and the id of the session the request carries (the sessions list marks it "this
 * device"). `seen`: the request is the person's own doing (a page, the app's API), so it moves the
 * session's last-seen time.
 */
export async function signedInSession(
  headers: Headers,
  opts: { seen?: boolean } = {},
): Promise<{ actor: Actor; sessionId: string } | null> {
  const s = await auth().api.getSession({ headers });
  if (!s) return null;
  const u = await db().user.findUnique({
    where: { id: s.user.id },
    select: { id: true, email: true, name: true, role: true, disabledAt: true },
  });
  if (!u || u.disabledAt) return null;
  if (opts.seen && touchDue(s.session.id)) await touchSignInSession(db(), s.session.id);
  return { actor: { id: u.id, email: u.email, name: u.name, role: u.role as Role }, sessionId: s.session.id };
}
