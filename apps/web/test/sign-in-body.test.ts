import { describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@tranche/db";
import { deviceCookies } from "../server/device-cookie";
import { handleAuthRequest, type AuthRouteDeps } from "../server/sign-in-guard";
import { unsizedMebibyte } from "./support/unsized-body";

// /api/auth reads the body itself, bounded: its callers are not signed in, and a body of megabytes held
// while its sender stalled was memory anyone could take from the web app.
function deps(): AuthRouteDeps & { handler: ReturnType<typeof vi.fn> } {
  return {
    handler: vi.fn(async () => Response.json({ ok: true })),
    prisma: {} as PrismaClient,
    limits: null,
    trustedProxies: [],
    deviceCookies: deviceCookies("a-secret-a-secret-a-secret-a-secret", "http://127.0.0.1:3000"),
  };
}
const signIn = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1:3000/api/auth/sign-in/email", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);

describe("the sign-in route's body", () => {
  it("over 64 KiB is a 413 that says so, and better-auth never sees it", async () => {
    const d = deps();
    const big = JSON.stringify({ email: "maya@example.org", password: "x".repeat(64 * 1024) });
    const r = await handleAuthRequest(signIn(big), d);
    expect(r.status).toBe(413);
    expect(((await r.json()) as { message: string }).message).toBe(
      "The request body is larger than 64 KiB, the most a sign-in request takes; nothing was done",
    );
    expect(d.handler).not.toHaveBeenCalled();
  });

  it("sent without a length, is read no further than 64 KiB", async () => {
    const d = deps();
    const { body: mebibyte, sent } = unsizedMebibyte();
    const r = await handleAuthRequest(signIn(mebibyte), d);
    expect(r.status).toBe(413);
    expect(sent()).toBeLessThan(256 * 1024);
    expect(d.handler).not.toHaveBeenCalled();
  });

  it("of an ordinary sign-in reaches better-auth whole", async () => {
    const d = deps();
    const body = JSON.stringify({ email: "maya@example.org", password: "tranche-demo" });
    expect((await handleAuthRequest(signIn(body), d)).status).toBe(200);
    expect(await (d.handler.mock.calls[0]![0] as Request).text()).toBe(body);
  });
});
