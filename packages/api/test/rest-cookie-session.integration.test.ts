import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleRest } from "../src/rest";
import { goodJob, makeWorld, type World } from "./fixtures";

// REST with the web app's cookie session (the session resolver stands in for better-auth): it must
// refuse what another site makes a signed-in browser send, and leave bearer tokens alone.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_rest_cookie");
});
afterAll(async () => {
  await w?.db.drop();
});

const APP = "http://127.0.0.1:3000";

async function asBrowser(method: string, path: string, headers: Record<string, string>, body?: string) {
  const req = new Request(`${APP}/api/v1${path}`, { method, headers: { cookie: "session=1", ...headers }, body });
  const res = await handleRest(req, path, {
    prisma: w.db.prisma,
    sessionUser: async () => w.users.ada,
    allowedOrigins: ["https://tranche.lab.example"],
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

const json = JSON.stringify(goodJob);

describe("REST with a cookie session", () => {
  it("refuses a cross-site job submit, as JSON or text/plain, and stores nothing", async () => {
    const before = await w.counts();
    const cases: Record<string, string>[] = [
      { origin: "http://evil.example", "content-type": "text/plain" },
      { origin: "http://evil.example", "content-type": "application/json" },
      { "sec-fetch-site": "cross-site", "content-type": "application/json" },
      { origin: APP, "content-type": "text/plain;charset=UTF-8" },
      { "content-type": "application/json" }, // no Origin, no Sec-Fetch-Site
    ];
    for (const headers of cases) {
      const r = await asBrowser("POST", "/jobs", headers, json);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.body.error!.code).toBe("FORBIDDEN");
    }
    const evil = await asBrowser("POST", "/jobs", { origin: "http://evil.example", "content-type": "text/plain" }, json);
    expect(evil.body.error!.message).toMatch(/only from Tranche's own pages, not from http:\/\/evil\.example/);
    expect(await w.counts()).toEqual(before);
  });

  it("refuses cross-site reads but allows plain ones", async () => {
    expect((await asBrowser("GET", "/me", { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await asBrowser("GET", "/me", { origin: "http://evil.example" })).status).toBe(403);
    expect((await asBrowser("GET", "/me", {})).status).toBe(200);
  });

  it("accepts the app's own pages: same Origin, the public URL, or Sec-Fetch-Site same-origin", async () => {
    const ownPages: Record<string, string>[] = [
      { origin: APP },
      { origin: "https://tranche.lab.example" },
      { "sec-fetch-site": "same-origin" },
    ];
    for (const headers of ownPages) {
      const r = await asBrowser("POST", "/jobs", { ...headers, "content-type": "application/json" }, json);
      expect(r.status, JSON.stringify(headers)).toBe(201);
    }
  });

  it("leaves bearer tokens alone, from anywhere", async () => {
    const { token } = await w.caller("ada").token.create({ name: "script" });
    const req = new Request(`${APP}/api/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, origin: "http://elsewhere.example", "content-type": "application/json" },
      body: json,
    });
    const res = await handleRest(req, "/jobs", { prisma: w.db.prisma, sessionUser: async () => null });
    expect(res.status).toBe(201);
  });
});

describe("API tokens", () => {
  it("expire after 90 days by default, and never later than that", async () => {
    const before = Date.now();
    const t = await w.caller("ada").token.create({ name: "default" });
    const ms = new Date(t.apiToken.expiresAt!).getTime() - before;
    expect(ms).toBeGreaterThan(89.9 * 86_400_000);
    expect(ms).toBeLessThan(90.1 * 86_400_000);
    const n = await w.caller("ada").token.create({ name: "null asks for the default", expiresInDays: null });
    expect(n.apiToken.expiresAt).not.toBeNull();
    await expect(w.caller("ada").token.create({ name: "long", expiresInDays: 3650 })).rejects.toThrow(
      /expiresInDays 3650 is longer than the longest token life of 90 days \(TRANCHE_API_TOKEN_TTL_DAYS\)/,
    );
    expect(await w.db.prisma.apiToken.count({ where: { expiresAt: null } })).toBe(0);
  });

  it("take their longest life from TRANCHE_API_TOKEN_TTL_DAYS", async () => {
    process.env.TRANCHE_API_TOKEN_TTL_DAYS = "7";
    try {
      const t = await w.caller("maya").token.create({ name: "short" });
      expect(new Date(t.apiToken.expiresAt!).getTime() - Date.now()).toBeLessThan(7.01 * 86_400_000);
      await expect(w.caller("maya").token.create({ name: "x", expiresInDays: 8 })).rejects.toThrow(/of 7 days/);
    } finally {
      delete process.env.TRANCHE_API_TOKEN_TTL_DAYS;
    }
  });
});
