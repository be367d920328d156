import { createHmac, randomBytes } from "node:crypto";

/** How a webhook secret begins (Standard Webhooks): the rest is the key's bytes in base64. */
const SECRET_PREFIX = "whsec_";

/** A new signing secret: 32 random bytes, as Standard Webhooks libraries take it ("whsec_" + base64). */
export function makeWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString("base64");
}

/**
 * The headers that let a receiver check a POST came from Tranche and is not a replay, as Standard Webhooks
 * (standardwebhooks.com) has them, so its libraries verify them as they are: `webhook-id` (the
 * notification's id, the same on every try), `webhook-timestamp` (this try, unix seconds) and
 * `webhook-signature`, "v1," and the base64 HMAC-SHA256 of "id.timestamp.body" keyed with the secret's
 * bytes. The timestamp is signed, so a receiver that refuses old ones refuses replays.
 */
export function webhookSignatureHeaders(secret: string, id: string, timestampSec: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestampSec}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSec), "webhook-signature": `v1,${signature}` };
}
