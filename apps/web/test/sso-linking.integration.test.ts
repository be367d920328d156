import { betterAuth } from "better-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { seedDemoWorld } from "@tranche/db/setup";
import { createUser, type Actor, type Role } from "@tranche/domain";
import { SSO_START_PATH, ssoStartBody } from "../app/login/sso-start";
import { authOptions } from "../server/auth-options";
import { startFakeIdp, type IdpPerson } from "./fake-idp";

// Single sign-on through the web app's better-auth options against a fake provider: a first SSO
// whose e-mail belongs to an existing local account must not sign in to it unless the admin trusts
// the provider (TRANCHE_OIDC_LINK_EXISTING=1) and the provider says the e-mail is verified.

const BASE = "http://127.0.0.1:3000";
let db: TestDatabase;
let idp: Awaited<ReturnType<typeof startFakeIdp>>;
beforeAll(async () => {
  db = await createTestDatabase("web_sso_linking");
  await seedDemoWorld(db.prisma);
  idp = await startFakeIdp();
});
afterAll(async () => {
  await idp?.close();
  await db?.drop();
});

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");

/** One single sign-on from the button to the callback; answers where the browser is sent and its cookies. */
async function signInWithSso(person: IdpPerson, env: Record<string, string> = {}) {
  const auth = betterAuth(
    authOptions(db.prisma, "a".repeat(40), {
      BETTER_AUTH_URL: BASE,
      TRANCHE_OIDC_ISSUER: idp.issuer,
      TRANCHE_OIDC_CLIENT_ID: "tranche",
      TRANCHE_OIDC_CLIENT_SECRET: "secret",
      TRANCHE_AUTH_RATE_LIMIT: "off",
      ...env,
    }),
  );
  const start = await auth.handler(
    // What the sign-in page's button sends.
    new Request(`${BASE}${SSO_START_PATH}`, {
      method: "POST",
      headers: { origin: BASE, "content-type": "application/json" },
      body: JSON.stringify(ssoStartBody("oidc")),
    }),
  );
  expect(start.status).toBe(200);
  const { url } = (await start.json()) as { url: string };
  const state = new URL(url).searchParams.get("state")!;
  idp.next(person);
  const back = await auth.handler(
    new Request(`${BASE}/api/auth/callback/oidc?code=c&state=${encodeURIComponent(state)}`, {
      headers: { cookie: cookiesOf(start) },
    }),
  );
  return { location: back.headers.get("location") ?? "", cookies: cookiesOf(back) };
}

const ssoAccounts = (email: string) => db.prisma.account.count({ where: { providerId: "oidc", user: { email } } });

describe("single sign-on and existing accounts", () => {
  it("signs a new person up, as before", async () => {
    const r = await signInWithSso({ sub: "new-1", email: "newcomer@lab.example", emailVerified: true });
    expect(r.location).toBe("/");
    expect(r.cookies).toMatch(/better-auth\.session_token=/);
    expect(await ssoAccounts("newcomer@lab.example")).toBe(1);
  });

  it("does not sign in to an existing local account by default, even with a verified e-mail", async () => {
    const r = await signInWithSso({ sub: "attacker-1", email: "admin@tranche.example", emailVerified: true });
    expect(r.location).toMatch(/\/login\?error=account_not_linked/);
    expect(r.cookies).not.toMatch(/session_token=/);
    expect(await ssoAccounts("admin@tranche.example")).toBe(0);
  });

  it("does not link for a trusted provider that does not say the e-mail is verified", async () => {
    const r = await signInWithSso(
      { sub: "attacker-2", email: "maya@tranche.example", emailVerified: false },
      { TRANCHE_OIDC_LINK_EXISTING: "1" },
    );
    expect(r.location).toMatch(/\/login\?error=account_not_linked/);
    expect(r.cookies).not.toMatch(/session_token=/);
    expect(await ssoAccounts("maya@tranche.example")).toBe(0);
  });

  it("links when the admin trusts the provider and it says the e-mail is verified", async () => {
    const r = await signInWithSso(
      { sub: "ada-at-idp", email: "ada@tranche.example", emailVerified: true },
      { TRANCHE_OIDC_LINK_EXISTING: "1" },
    );
    expect(r.location).toBe("/");
    expect(r.cookies).toMatch(/better-auth\.session_token=/);
    expect(await ssoAccounts("ada@tranche.example")).toBe(1);
  });

  it("links to an account an admin created (its e-mail never verified here) when the provider is trusted", async () => {
    const u = await db.prisma.user.findUniqueOrThrow({ where: { email: "admin@tranche.example" } });
    const admin: Actor = { id: u.id, email: u.email, name: u.name, role: u.role as Role };
    await createUser(db.prisma, admin, { email: "lin@lab.example", name: "Lin", role: "RESEARCHER" }, BASE);
    const r = await signInWithSso(
      { sub: "lin-at-idp", email: "lin@lab.example", emailVerified: true },
      { TRANCHE_OIDC_LINK_EXISTING: "1" },
    );
    expect(r.location).toBe("/");
    expect(await ssoAccounts("lin@lab.example")).toBe(1);
  });
});
