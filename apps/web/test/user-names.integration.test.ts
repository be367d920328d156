import { betterAuth } from "better-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { DEMO_PASSWORD, seedDemoWorld } from "@tranche/db/setup";
import { authOptions } from "../server/auth-options";

// Display names through better-auth's own routes, with the app's options over a real Postgres: its
// update-user route is closed (only admins rename people), and every name it writes (self sign-up here)
// is 1 to 100 characters without control characters; a refused one changes nothing.

const BASE = "http://127.0.0.1:3000";
const LONG = "N".repeat(101);
const ESCAPED = "Ada \u001b]0;pwned\u0007\u001b[2J";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("web_user_names");
  await seedDemoWorld(db.prisma);
});
afterAll(async () => {
  await db?.drop();
});

function makeApp(env: Record<string, string> = {}, reopenUpdateUser = false) {
  const options = authOptions(db.prisma, "a".repeat(40), { BETTER_AUTH_URL: BASE, TRANCHE_AUTH_RATE_LIMIT: "off", ...env });
  const auth = betterAuth(reopenUpdateUser ? { ...options, disabledPaths: [] } : options);
  return async (path: string, body: unknown, cookie?: string) => {
    const headers: Record<string, string> = { origin: BASE, "content-type": "application/json" };
    if (cookie) headers.cookie = cookie;
    const res = await auth.handler(
      new Request(`${BASE}/api/auth${path}`, { method: "POST", headers, body: JSON.stringify(body) }),
    );
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions walk better-auth's JSON
    const json: any = text.startsWith("{") ? JSON.parse(text) : text;
    return {
      status: res.status,
      body: json,
      cookie: res.headers
        .getSetCookie()
        .map((c) => c.split(";")[0]!)
        .join("; "),
    };
  };
}

const adaName = async () => (await db.prisma.user.findUniqueOrThrow({ where: { email: "ada@tranche.example" } })).name;

async function signedIn(call: ReturnType<typeof makeApp>): Promise<string> {
  const r = await call("/sign-in/email", { email: "ada@tranche.example", password: DEMO_PASSWORD });
  expect(r.status).toBe(200);
  return r.cookie;
}

describe("better-auth's update-user", () => {
  it('is closed: a signed-in researcher cannot rename themselves ("Alex Admin", a long or escaped name)', async () => {
    const call = makeApp();
    const cookie = await signedIn(call);
    for (const name of ["Alex Admin", LONG, ESCAPED]) {
      const r = await call("/update-user", { name }, cookie);
      expect(r.status).toBe(404);
    }
    expect(await adaName()).toBe("Ada Researcher");
  });

  it("were it open, its name would still be checked: 101 characters and ESC are refused, naming the field", async () => {
    const call = makeApp({}, true);
    const cookie = await signedIn(call);
    for (const [name, message] of [
      [LONG, "name is longer than 100 characters"],
      [ESCAPED, "name must not contain control characters (such as ESC, BEL, tab or a line break)"],
    ] as const) {
      const r = await call("/update-user", { name }, cookie);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toBe(message);
    }
    expect(await adaName()).toBe("Ada Researcher");
  });
});

describe("self sign-up (TRANCHE_ALLOW_SIGNUP=1)", () => {
  it("refuses a 101-character name and one with ESC, creating no user", async () => {
    const call = makeApp({ TRANCHE_ALLOW_SIGNUP: "1" });
    const count = await db.prisma.user.count();
    for (const [name, message] of [
      [LONG, "name is longer than 100 characters"],
      [ESCAPED, "name must not contain control characters (such as ESC, BEL, tab or a line break)"],
    ] as const) {
      const r = await call("/sign-up/email", { email: "newcomer@lab.example", password: "a long password", name });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toBe(message);
    }
    expect(await db.prisma.user.count()).toBe(count);
  });

  it("takes a good name, trimmed", async () => {
    const call = makeApp({ TRANCHE_ALLOW_SIGNUP: "1" });
    const r = await call("/sign-up/email", { email: "newcomer@lab.example", password: "a long password", name: "  New Comer " });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await db.prisma.user.findUniqueOrThrow({ where: { email: "newcomer@lab.example" } })).name).toBe("New Comer");
  });
});
