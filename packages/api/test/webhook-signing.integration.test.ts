import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimWebhooks, createApiToken, deliverWebhooks, sendClaimed, WEBHOOK_TIMEOUT_MS, type Actor } from "@tranche/domain";
import { callRest, makeWorld, type World } from "./fixtures";

// Signed webhooks end to end: the secret the REST answer shows once signs what the worker POSTs, a new
// one signs beside it for a day and then alone, and no one else (an admin included) ever reads it.

let w: World;
let server: Server;
let url: string;
const tokens: Record<string, string> = {};
const got: { headers: IncomingHttpHeaders; body: string }[] = [];
let answer = 204;

beforeAll(async () => {
  w = await makeWorld("api_webhook_signing");
  for (const who of ["ada", "maya", "admin"] as const)
    tokens[who] = (await createApiToken(w.db.prisma, w.users[who], { name: "test" })).token;
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      got.push({ headers: req.headers, body });
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // The receiver listens on 127.0.0.1: a lab whose hook receivers are internal says so.
  process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE = "1";
});
afterAll(async () => {
  delete process.env.TRANCHE_WEBHOOK_ALLOW_PRIVATE;
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  await w?.db.drop();
});

const call = (who: string, method: string, path: string, body?: unknown) =>
  callRest(w, method, path, { token: tokens[who]!, body });
const quiet = { warn: () => undefined };

/** A receiver's check, written from the Standard Webhooks spec apart from the code under test. */
function verifies(secret: string, h: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key)
    .update(`${String(h["webhook-id"])}.${String(h["webhook-timestamp"])}.${body}`)
    .digest();
  return String(h["webhook-signature"] ?? "")
    .split(" ")
    .some((s) => {
      const [version, sig] = s.split(",");
      const given = Buffer.from(sig ?? "", "base64");
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** One notification of `who` waiting for their webhook; answers its id. */
async function notify(who: Actor): Promise<string> {
  const n = await w.db.prisma.notification.create({
    data: { userId: who.id, kind: "FAILED", title: "Job 1 failed", sentence: "Exit code 1.", webhookState: "PENDING" },
  });
  return String(n.id);
}

describe("signed webhooks", () => {
  let first = "";

  it("signs each POST with the secret shown once when the webhook was set, the same id on every try", async () => {
    const set = await call("ada", "PUT", "/me/webhook", { url });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ url, signed: true });
    first = set.body.secret as string;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // Read back: where and whether, never the secret.
    expect((await call("ada", "GET", "/me/webhook")).body).toEqual({ url, signed: true });

    const id = await notify(w.users.ada);
    answer = 500;
    const before = Math.floor(Date.now() / 1000);
    await deliverWebhooks(w.db.prisma, quiet);
    answer = 204;
    expect(await deliverWebhooks(w.db.prisma, quiet)).toEqual({ sent: 1, failed: 0 });
    expect(got).toHaveLength(2);
    for (const { headers, body } of got.splice(0)) {
      expect(headers["webhook-id"]).toBe(id);
      expect((JSON.parse(body) as { id: string }).id).toBe(id);
      expect(Number(headers["webhook-timestamp"])).toBeGreaterThanOrEqual(before);
      expect(Number(headers["webhook-timestamp"])).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(verifies(first, headers, body)).toBe(true);
      // A body changed on the way, or another secret, does not verify.
      expect(verifies(first, headers, body.replace("failed", "finished"))).toBe(false);
      expect(verifies(`whsec_${Buffer.alloc(32).toString("base64")}`, headers, body)).toBe(false);
    }
  });

  it("a new secret signs the next POST beside the old one for a day, then alone", async () => {
    const rotated = await call("ada", "POST", "/me/webhook/secret");
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ url, signed: true });
    const second = rotated.body.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    await notify(w.users.ada);
    await deliverWebhooks(w.db.prisma, quiet);
    const [a] = got.splice(0);
    // Two signatures, the new secret's first: a receiver with either verifies it.
    expect(String(a!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifies(second, a!.headers, a!.body)).toBe(true);
    expect(verifies(first, a!.headers, a!.body)).toBe(true);
    const stored = await w.db.prisma.webhookSecret.findUniqueOrThrow({ where: { userId: w.users.ada.id } });
    const hours = (stored.previousUntil!.getTime() - stored.createdAt.getTime()) / 3_600_000;
    expect([stored.previousSecret, hours]).toEqual([first, 24]);

    // The day over, the old secret signs no more.
    await w.db.prisma.webhookSecret.update({
      where: { userId: w.users.ada.id },
      data: { previousUntil: new Date(Date.now() - 1_000) },
    });
    await notify(w.users.ada);
    await deliverWebhooks(w.db.prisma, quiet);
    const [b] = got.splice(0);
    expect(String(b!.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(verifies(second, b!.headers, b!.body)).toBe(true);
    expect(verifies(first, b!.headers, b!.body)).toBe(false);
  });

  it("setting the webhook again makes a new secret, the one it replaces still signing beside it", async () => {
    const again = await call("ada", "PUT", "/me/webhook", { url });
    const third = again.body.secret as string;
    const second = (await w.db.prisma.webhookSecret.findUniqueOrThrow({ where: { userId: w.users.ada.id } })).previousSecret!;
    expect([third === second, third === first, second === first]).toEqual([false, false, false]);
    await notify(w.users.ada);
    await deliverWebhooks(w.db.prisma, quiet);
    const [b] = got.splice(0);
    expect(verifies(third, b!.headers, b!.body)).toBe(true);
    expect(verifies(second, b!.headers, b!.body)).toBe(true);
    // Only the secret just replaced: the one before it signs no more.
    expect(verifies(first, b!.headers, b!.body)).toBe(false);
  });

  it("a POST claimed before a new secret was made but sent after is signed with the new one", async () => {
    await notify(w.users.ada);
    const claimed = await claimWebhooks(w.db.prisma, WEBHOOK_TIMEOUT_MS);
    expect(claimed).toHaveLength(1);
    const made = (await call("ada", "POST", "/me/webhook/secret")).body.secret as string;
    expect(await sendClaimed(w.db.prisma, quiet, claimed, WEBHOOK_TIMEOUT_MS)).toEqual({ sent: 1, failed: 0 });
    const [c] = got.splice(0);
    expect(verifies(made, c!.headers, c!.body)).toBe(true);
  });

  it("no one else reads the secret: not another user, not an admin's lists, not the audit log", async () => {
    const secret = (await call("ada", "POST", "/me/webhook/secret")).body.secret as string;
    const stored = await w.db.prisma.webhookSecret.findUniqueOrThrow({ where: { userId: w.users.ada.id } });
    expect(stored.secret).toBe(secret);
    // Maya's own webhook is hers alone: none, so nothing to read and no secret to make.
    expect((await call("maya", "GET", "/me/webhook")).body).toEqual({ url: null, signed: false });
    const refused = await call("maya", "POST", "/me/webhook/secret");
    expect([refused.status, refused.body.error.message]).toEqual([
      400,
      "You have no webhook, so there is no secret to replace: set a webhook first",
    ]);
    expect(await w.db.prisma.webhookSecret.count({ where: { userId: w.users.maya.id } })).toBe(0);
    const seen = [
      await call("ada", "GET", "/me/webhook"),
      await call("ada", "GET", "/me"),
      await call("ada", "GET", "/notifications"),
      await call("admin", "GET", "/users"),
      await call("admin", "GET", "/audit"),
    ];
    for (const r of seen) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain(secret.slice(6));
    }
    const audits = await w.db.prisma.auditLog.findMany();
    expect(JSON.stringify(audits, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).not.toContain(secret.slice(6));
  });

  it("turning the webhook off drops its secret", async () => {
    const off = await call("ada", "PUT", "/me/webhook", { url: null });
    expect(off.body).toEqual({ url: null, signed: false, secret: null });
    expect(await w.db.prisma.webhookSecret.count({ where: { userId: w.users.ada.id } })).toBe(0);
    expect((await call("ada", "GET", "/me/webhook")).body).toEqual({ url: null, signed: false });
  });
});
