import { createHmac } from "node:crypto";
import { betterAuth } from "better-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { DEMO_PASSWORD, seedDemoWorld } from "@tranche/db/setup";
import { authOptions } from "../server/auth-options";
import { PEER_HEADER } from "../server/client-address";
import { deviceCookies } from "../server/device-cookie";
import { hashSessionToken } from "../server/session-token-hash";
import { handleAuthRequest } from "../server/sign-in-guard";

// Session tokens at rest: the web app's own better-auth options over a real Postgres.

const BASE = "http://127.0.0.1:3000";
const SECRET = "s".repeat(40);
const COOKIE = "better-auth.session_token";
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("web_session_tokens");
  await seedDemoWorld(db.prisma);
});
afterAll(async () => {
  await db?.drop();
});

const auth = () => betterAuth(authOptions(db.prisma, SECRET, { BETTER_AUTH_URL: BASE }));
const deps = () => ({
  handler: (r: Request) => auth().handler(r),
  prisma: db.prisma,
  limits: null,
  trustedProxies: [],
  deviceCookies: deviceCookies(SECRET, BASE),
});

async function call(path: string, o: { body?: unknown; cookie?: string } = {}) {
  const headers: Record<string, string> = { origin: BASE, [PEER_HEADER]: "203.0.113.7" };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  if (o.cookie) headers.cookie = o.cookie;
  const res = await handleAuthRequest(
    new Request(`${BASE}/api/auth${path}`, {
      method: o.body !== undefined ? "POST" : "GET",
      headers,
      body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
    }),
    deps(),
  );
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as { user?: { email: string } } | null, res };
}

/** The session token a Set-Cookie carries (before its signature). */
const tokenIn = (res: Response) => {
  const c = res.headers.getSetCookie().find((s) => s.startsWith(`${COOKIE}=`));
  return c ? decodeURIComponent(c.slice(COOKIE.length + 1).split(";")[0]!).split(".")[0]! : null;
};
/** A session cookie for `token`, signed with the app's secret as better-auth signs it (an attacker who also has the secret). */
const cookieFor = (token: string) =>
  `${COOKIE}=${encodeURIComponent(`${token}.${createHmac("sha256", SECRET).update(token).digest("base64")}`)}`;
const signIn = (email: string) => call("/sign-in/email", { body: { email, password: DEMO_PASSWORD } });
const whoIs = async (cookie: string) => (await call("/get-session", { cookie })).body?.user?.email ?? null;

describe("session tokens at rest", () => {
  it("keeps only sha256 of the token in the session row; the cookie's token signs in", async () => {
    const r = await signIn("ada@tranche.example");
    expect(r.status).toBe(200);
    const token = tokenIn(r.res)!;
    expect(token).toMatch(/^\w{32}$/);
    const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } });
    const rows = await db.prisma.session.findMany({ where: { userId: user.id } });
    expect(rows.map((s) => s.token)).toContain(hashSessionToken(token));
    expect(rows.map((s) => s.token)).not.toContain(token);
    expect(await whoIs(cookieFor(token))).toBe("ada@tranche.example");
  });

  it("refuses a stolen session row presented as a cookie, even signed with the app's secret", async () => {
    const r = await signIn("maya@tranche.example");
    const token = tokenIn(r.res)!;
    const row = await db.prisma.session.findUniqueOrThrow({ where: { token: hashSessionToken(token) } });
    expect(await whoIs(cookieFor(row.token))).toBeNull();
    expect(await whoIs(cookieFor(token))).toBe("maya@tranche.example");
  });

  it("ends the session at sign-out: the row is gone and the cookie is refused", async () => {
    const r = await signIn("victor@tranche.example");
    const token = tokenIn(r.res)!;
    expect(await whoIs(cookieFor(token))).toBe("victor@tranche.example");
    const out = await call("/sign-out", { body: {}, cookie: cookieFor(token) });
    expect(out.status).toBe(200);
    expect(await db.prisma.session.count({ where: { token: hashSessionToken(token) } })).toBe(0);
    expect(await whoIs(cookieFor(token))).toBeNull();
  });

  it("extends a session that is due for it and re-signs the cookie with the token, not the hash", async () => {
    const r = await signIn("omar@tranche.example");
    const token = tokenIn(r.res)!;
    // Due for its daily extension: it expires in less than (7 days - 1 day).
    const soon = new Date(Date.now() + 2 * 86_400_000);
    await db.prisma.session.update({ where: { token: hashSessionToken(token) }, data: { expiresAt: soon } });
    const got = await call("/get-session", { cookie: cookieFor(token) });
    expect(got.body?.user?.email).toBe("omar@tranche.example");
    expect(tokenIn(got.res)).toBe(token);
    const row = await db.prisma.session.findUniqueOrThrow({ where: { token: hashSessionToken(token) } });
    expect(row.expiresAt.getTime()).toBeGreaterThan(soon.getTime());
    expect(await whoIs(cookieFor(token))).toBe("omar@tranche.example");
  });
});
