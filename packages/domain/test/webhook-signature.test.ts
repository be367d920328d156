import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { makeWebhookSecret, webhookSignatureHeaders } from "../src/notifications/webhook-signature";

describe("webhook signatures (Standard Webhooks)", () => {
  it("reproduces the specification's test vector, so its libraries verify our POSTs", () => {
    // The published Standard Webhooks example: secret, message id, timestamp, body and signature.
    const h = webhookSignatureHeaders(
      "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      "msg_p5jXN8AQM9LWM0D4loKWxJek",
      1614265330,
      '{"test": 2432232314}',
    );
    expect(h).toEqual({
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    });
  });

  it("signs the id and the timestamp with the body, so neither can be changed or replayed under another", () => {
    const secret = makeWebhookSecret();
    const a = webhookSignatureHeaders(secret, "7", 1_800_000_000, "{}")["webhook-signature"];
    expect(webhookSignatureHeaders(secret, "8", 1_800_000_000, "{}")["webhook-signature"]).not.toBe(a);
    expect(webhookSignatureHeaders(secret, "7", 1_800_000_001, "{}")["webhook-signature"]).not.toBe(a);
    expect(webhookSignatureHeaders(secret, "7", 1_800_000_000, "{ }")["webhook-signature"]).not.toBe(a);
    expect(webhookSignatureHeaders(makeWebhookSecret(), "7", 1_800_000_000, "{}")["webhook-signature"]).not.toBe(a);
  });

  it("makes secrets of 32 random bytes, whsec_ and base64, each new", () => {
    const s = makeWebhookSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
    // The key is those bytes, not the text: checked with node:crypto apart from the code under test.
    const expected = createHmac("sha256", Buffer.from(s.slice(6), "base64"))
      .update("1.2.x")
      .digest("base64");
    expect(webhookSignatureHeaders(s, "1", 2, "x")["webhook-signature"]).toBe(`v1,${expected}`);
    expect(new Set(Array.from({ length: 50 }, makeWebhookSecret)).size).toBe(50);
  });

  it("signs with several secrets as the specification's space-separated list, the first given first", () => {
    const [next, old] = [makeWebhookSecret(), makeWebhookSecret()];
    const one = (s: string) => webhookSignatureHeaders(s, "1", 2, "x")["webhook-signature"];
    expect(webhookSignatureHeaders([next, old], "1", 2, "x")["webhook-signature"]).toBe(`${one(next)} ${one(old)}`);
  });
});
