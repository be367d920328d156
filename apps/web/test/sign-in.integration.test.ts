import { betterAuth } from "better-auth";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { DEMO_LOGINS, DEMO_PASSWORD, seedDemoWorld } from "@tranche/db/setup";
import { DEFAULT_SIGN_IN_LIMITS, startSession, type SignInLimits } from "@tranche/domain";
import { authOptions } from "../server/auth-options";
import { PEER_HEADER, parseTrustedProxies } from "../server/client-address";
import { deviceCookies } from "../server/device-cookie";
import { handleAuthRequest } from "../server/sign-in-guard";

// The web app's /api/auth route end to end: the same better-auth options and sign-in guard as the
// app, over a real Postgres with the demo world.

const BASE = "http://127.0.0.1:3000";
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("web_sign_in");
  await seedDemoWorld(db.prisma);
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(async () => {
  await db.prisma.signInFailure.deleteMany();
});

function makeApp(opts: { limits?: SignInLimits | null; env?: Record<string, string>; proxies?: string; secret?: string } = {}) {
  const env = { BETTER_AUTH_URL: BASE, ...opts.env };
  const secret = opts.secret ?? "a".repeat(40);
  const auth = betterAuth(authOptions(db.prisma, secret, env));
  const deps = {
    handler: (r: Request) => auth.handler(r),
    prisma: db.prisma,
    limits: opts.limits === undefined ? DEFAULT_SIGN_IN_LIMITS : opts.limits,
    trustedProxies: parseTrustedProxies(opts.proxies),
    deviceCookies: deviceCookies(secret, env.BETTER_AUTH_URL),
  };
  const call = async (path: string, o: { body?: unknown; peer?: string; xff?: string; cookie?: string } = {}) => {
    const headers: Record<string, string> = { origin: env.BETTER_AUTH_URL, [PEER_HEADER]: o.peer ?? "203.0.113.7" };
    if (o.body !== undefined) headers["content-type"] = "application/json";
    if (o.xff) headers["x-forwarded-for"] = o.xff;
    if (o.cookie) headers.cookie = o.cookie;
    const res = await handleAuthRequest(
      new Request(`${env.BETTER_AUTH_URL}/api/auth${path}`, {
        method: o.body !== undefined ? "POST" : "GET",
        headers,
        body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
      }),
      deps,
    );
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions walk better-auth's JSON
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any, res };
  };
  const signIn = (email: string, password: string, o: { peer?: string; xff?: string; cookie?: string } = {}) =>
    call("/sign-in/email", { body: { email, password }, ...o });
  return { call, signIn };
}

const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");

/** The device cookie a successful sign-in set, as a browser sends it back. */
const deviceOf = (res: Response) => {
  const c = res.headers.getSetCookie().find((s) => s.startsWith("tranche.device="));
  expect(c, "a device cookie").toBeDefined();
  return c!.split(";")[0]!;
};
const hhmm = (iso: string) => iso.slice(11, 16);

describe("password sign-in", () => {
  it("lets the five demo logins sign in one after another from one address, without the token in the JSON", async () => {
    const app = makeApp();
    for (const u of DEMO_LOGINS) {
      const r = await app.signIn(u.email, DEMO_PASSWORD);
      expect(r.status, u.email).toBe(200);
      expect(r.body.user.email).toBe(u.email);
      expect(r.body).not.toHaveProperty("token");
      expect(cookieOf(r.res)).toMatch(/better-auth\.session_token=/);
    }
  });

  it("locks an account after 5 failures, even from new addresses, with the time to try again", async () => {
    const app = makeApp();
    for (let i = 0; i < 5; i++) {
      const r = await app.signIn("maya@tranche.example", "wrong-password", { peer: `198.51.100.${i + 1}` });
      expect(r.status).toBe(401);
    }
    const before = Date.now();
    const locked = await app.signIn("maya@tranche.example", DEMO_PASSWORD, { peer: "198.51.100.99" });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toBe(
      `Sign-in to this account from this browser is paused until ${hhmm(locked.body.retryAt)} UTC (in 15 min): ` +
        "it had 5 failed sign-ins from browsers it was not signed in with before. " +
        "A browser you have signed in with before still works.",
    );
    const retryAt = new Date(locked.body.retryAt as string).getTime();
    expect(retryAt - before).toBeGreaterThan(14 * 60_000);
    expect(retryAt - before).toBeLessThanOrEqual(15 * 60_000 + 5_000);
    expect(Number(locked.res.headers.get("retry-after"))).toBeGreaterThan(800);
    // Other accounts are not affected.
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD, { peer: "198.51.100.99" })).status).toBe(200);
  });

  it("clears an account's failures when the right password is given", async () => {
    const app = makeApp();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4; i++)
        expect((await app.signIn("victor@tranche.example", "nope-nope", { peer: `192.0.2.${i}` })).status).toBe(401);
      expect((await app.signIn("victor@tranche.example", DEMO_PASSWORD)).status).toBe(200);
    }
  });

  it("limits failures per socket address: a rotated X-Forwarded-For does not help", async () => {
    const app = makeApp({ limits: { ...DEFAULT_SIGN_IN_LIMITS, address: { maxFailures: 3, windowSec: 600 } } });
    for (let i = 0; i < 3; i++) {
      const r = await app.signIn(`nobody${i}@tranche.example`, "wrong-password", { xff: `10.9.9.${i}` });
      expect(r.status).toBe(401);
    }
    const refused = await app.signIn("ada@tranche.example", DEMO_PASSWORD, { xff: "10.9.9.200" });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many failed sign-ins from your network address; try again in 10 min/);
    // Another client (another socket peer) is not affected.
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD, { peer: "203.0.113.8" })).status).toBe(200);
  });

  it("reads X-Forwarded-For only from a trusted proxy", async () => {
    const limits = { ...DEFAULT_SIGN_IN_LIMITS, address: { maxFailures: 2, windowSec: 600 } };
    const app = makeApp({ limits, proxies: "10.0.0.0/8" });
    const viaProxy = { peer: "10.0.0.5" };
    for (let i = 0; i < 2; i++)
      expect((await app.signIn(`x${i}@tranche.example`, "wrong-pw-1", { ...viaProxy, xff: "198.51.100.50" })).status).toBe(401);
    // The client behind the proxy is limited; another client behind the same proxy is not.
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD, { ...viaProxy, xff: "198.51.100.50" })).status).toBe(429);
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD, { ...viaProxy, xff: "198.51.100.51" })).status).toBe(200);
    const rows = await db.prisma.signInFailure.findMany({ where: { key: { startsWith: "address:" } } });
    expect(rows.map((r) => r.key).sort()).toEqual(["address:198.51.100.50", "address:198.51.100.51"]);
  });

  it("refuses parallel guesses beyond the limit: at most 5 reach the password check", async () => {
    const app = makeApp();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => app.signIn("omar@tranche.example", `guess-${i}-xx`, { peer: `192.0.2.${50 + i}` })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
  });

  it("does not count anything with TRANCHE_AUTH_RATE_LIMIT=off", async () => {
    const app = makeApp({ limits: null, env: { TRANCHE_AUTH_RATE_LIMIT: "off" } });
    for (let i = 0; i < 7; i++) expect((await app.signIn("ada@tranche.example", "wrong-password")).status).toBe(401);
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD)).status).toBe(200);
    expect(await db.prisma.signInFailure.count()).toBe(0);
  });
});

describe("device cookies: nobody locks another person out of their usual browser", () => {
  const VICTIM = "maya@tranche.example";
  /** Five wrong passwords for `email` from browsers it never signed in with, each from its own address. */
  async function guessFiveTimes(app: ReturnType<typeof makeApp>, email: string) {
    for (let i = 0; i < 5; i++)
      expect((await app.signIn(email, "wrong-password", { peer: `198.51.100.${i + 1}` })).status).toBe(401);
  }

  it("gives a browser that signed in a long-lived HttpOnly device cookie for the sign-in route", async () => {
    const signedIn = await makeApp().signIn(VICTIM, DEMO_PASSWORD);
    const set = signedIn.res.headers.getSetCookie().find((c) => c.startsWith("tranche.device="))!;
    expect(set).toMatch(/; Max-Age=31536000; Path=\/api\/auth; HttpOnly; SameSite=Strict$/);
    const https = await makeApp({ env: { BETTER_AUTH_URL: "https://tranche.example" } }).signIn(VICTIM, DEMO_PASSWORD);
    expect(https.res.headers.getSetCookie().find((c) => c.startsWith("__Secure-tranche.device="))).toMatch(/; Secure$/);
  });

  it("an attacker's wrong passwords pause untrusted browsers, while the victim's usual browser still signs in", async () => {
    const app = makeApp();
    const victimBrowser = deviceOf((await app.signIn(VICTIM, DEMO_PASSWORD, { peer: "192.0.2.10" })).res);
    await guessFiveTimes(app, VICTIM);
    const attacker = await app.signIn(VICTIM, DEMO_PASSWORD, { peer: "198.51.100.99" });
    expect(attacker.status).toBe(429);
    expect(attacker.body.message).toMatch(/^Sign-in to this account from this browser is paused until \d\d:\d\d UTC/);
    const victim = await app.signIn(VICTIM, DEMO_PASSWORD, { peer: "192.0.2.10", cookie: victimBrowser });
    expect(victim.status).toBe(200);
    expect(victim.body.user.email).toBe(VICTIM);
    // The untrusted lock stays: the victim's success does not hand the attacker new guesses.
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { peer: "198.51.100.98" })).status).toBe(429);
  });

  it("an attacker who locks a shared network address does not stop a trusted browser behind it", async () => {
    const app = makeApp({ limits: { ...DEFAULT_SIGN_IN_LIMITS, address: { maxFailures: 3, windowSec: 600 } } });
    const office = { peer: "203.0.113.50" };
    const victimBrowser = deviceOf((await app.signIn(VICTIM, DEMO_PASSWORD, office)).res);
    for (let i = 0; i < 3; i++)
      expect((await app.signIn(`nobody${i}@tranche.example`, "wrong-password", office)).status).toBe(401);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, office)).status).toBe(429);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { ...office, cookie: victimBrowser })).status).toBe(200);
  });

  it("wrong passwords from a trusted browser pause only that browser", async () => {
    const app = makeApp();
    const laptop = deviceOf((await app.signIn(VICTIM, DEMO_PASSWORD)).res);
    const desktop = deviceOf((await app.signIn(VICTIM, DEMO_PASSWORD)).res);
    expect(laptop).not.toBe(desktop);
    // A success from the browser clears its failures.
    for (let i = 0; i < 4; i++) expect((await app.signIn(VICTIM, "wrong-password", { cookie: laptop })).status).toBe(401);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { cookie: laptop })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await app.signIn(VICTIM, "wrong-password", { cookie: laptop })).status).toBe(401);
    const paused = await app.signIn(VICTIM, DEMO_PASSWORD, { cookie: laptop });
    expect(paused.status).toBe(429);
    expect(paused.body.message).toBe(
      `Sign-in from this browser is paused until ${hhmm(paused.body.retryAt)} UTC (in 15 min) after 5 failed sign-ins here.`,
    );
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { cookie: desktop })).status).toBe(200);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { peer: "192.0.2.77" })).status).toBe(200);
  });

  it("a device cookie of another account does not help", async () => {
    const app = makeApp();
    const adasBrowser = deviceOf((await app.signIn("ada@tranche.example", DEMO_PASSWORD)).res);
    await guessFiveTimes(app, VICTIM);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { cookie: adasBrowser })).status).toBe(429);
    // Nor the other way round: guesses with Ada's cookie at Maya's account count as untrusted ones.
    await db.prisma.signInFailure.deleteMany();
    for (let i = 0; i < 5; i++)
      expect((await app.signIn(VICTIM, "wrong-password", { cookie: adasBrowser, peer: `198.51.100.${i + 1}` })).status).toBe(401);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD)).status).toBe(429);
    expect((await app.signIn("ada@tranche.example", DEMO_PASSWORD, { cookie: adasBrowser })).status).toBe(200);
  });

  it("a forged or altered device cookie is untrusted", async () => {
    const app = makeApp();
    const genuine = deviceOf((await app.signIn(VICTIM, DEMO_PASSWORD)).res);
    const [name, value] = genuine.split("=") as [string, string];
    const [nonce, issued, mac] = value.split(".") as [string, string, string];
    const flip = (s: string) => (s[0] === "A" ? "B" : "A") + s.slice(1);
    const otherServer = deviceOf((await makeApp({ secret: "b".repeat(40) }).signIn(VICTIM, DEMO_PASSWORD)).res);
    const fakes = [
      `${name}=${nonce}.${issued}.${flip(mac)}`,
      `${name}=${flip(nonce)}.${issued}.${mac}`,
      `${name}=${nonce}.${Number(issued) + 1}.${mac}`,
      `${name}=${nonce}.${issued}`,
      `${name}=${nonce}.${issued}.${mac}.${mac}`,
      otherServer,
    ];
    await db.prisma.signInFailure.deleteMany();
    await guessFiveTimes(app, VICTIM);
    for (const cookie of fakes) expect((await app.signIn(VICTIM, DEMO_PASSWORD, { cookie })).status, cookie).toBe(429);
    expect((await app.signIn(VICTIM, DEMO_PASSWORD, { cookie: genuine })).status).toBe(200);
  });
});

describe("sessions", () => {
  it("refuses a signed-out session's cookie at once", async () => {
    const app = makeApp();
    const signedIn = await app.signIn("ada@tranche.example", DEMO_PASSWORD);
    const cookie = cookieOf(signedIn.res);
    const before = await app.call("/get-session", { cookie });
    expect(before.body.user.email).toBe("ada@tranche.example");
    expect(before.body.session).not.toHaveProperty("token");
    expect((await app.call("/sign-out", { body: {}, cookie })).status).toBe(200);
    // The same cookies a browser (or a thief) kept from before the sign-out.
    expect((await app.call("/get-session", { cookie })).body).toBeNull();
  });

  it("ends the signed-out user's cookies of the sessions host, and no one else's", async () => {
    const app = makeApp();
    const [ada, maya] = await Promise.all(
      ["ada@tranche.example", "maya@tranche.example"].map((email) => db.prisma.user.findUniqueOrThrow({ where: { email } })),
    );
    const actor = { id: ada!.id, email: ada!.email, name: ada!.name, role: "RESEARCHER" as const };
    const job = await startSession(db.prisma, actor, {
      cluster: "h100",
      budget: "lab/language/pretraining",
      gpus: 1,
      minRuntime: 3600,
      jupyter: false,
    });
    const grant = (userId: string, n: number) => ({
      jobId: job.id,
      userId,
      ticketHash: `ticket-${n}`,
      stateHash: "state",
      ticketExpiresAt: new Date(),
      usedAt: new Date(),
      grantHash: `grant-${n}`,
      grantExpiresAt: new Date(Date.now() + 3600_000),
    });
    await db.prisma.sessionHandoff.createMany({ data: [grant(ada!.id, 1), grant(maya!.id, 2)] });
    const cookie = cookieOf((await app.signIn("ada@tranche.example", DEMO_PASSWORD)).res);
    expect((await app.call("/sign-out", { body: {}, cookie })).status).toBe(200);
    const left = await db.prisma.sessionHandoff.findMany({ select: { userId: true } });
    expect(left).toEqual([{ userId: maya!.id }]);
    await db.prisma.sessionHandoff.deleteMany();
  });

  it("sets Secure cookies when served over https", async () => {
    const app = makeApp({ env: { BETTER_AUTH_URL: "https://tranche.example" } });
    const r = await app.signIn("ada@tranche.example", DEMO_PASSWORD);
    expect(r.status).toBe(200);
    const cookies = r.res.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) expect(c).toMatch(/;\s*Secure/i);
    const plain = await makeApp().signIn("ada@tranche.example", DEMO_PASSWORD);
    for (const c of plain.res.headers.getSetCookie()) expect(c).not.toMatch(/;\s*Secure/i);
  });
});

describe("seeded demo accounts", () => {
  it("each have their own salt and hash; generated researchers have no password", async () => {
    const accounts = await db.prisma.account.findMany({ where: { providerId: "credential" } });
    expect(accounts).toHaveLength(DEMO_LOGINS.length);
    const salts = accounts.map((a) => a.password!.split(":")[0]);
    expect(new Set(salts).size).toBe(DEMO_LOGINS.length);
    expect(new Set(accounts.map((a) => a.password)).size).toBe(DEMO_LOGINS.length);
  });
});
