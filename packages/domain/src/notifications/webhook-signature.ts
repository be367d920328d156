import { createHmac, randomBytes } from "node:crypto";
import type { PrismaClient } from "@tranche/db";

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
 * bytes. The timestamp is signed, so a receiver that refuses old ones refuses replays. Several secrets
 * give one signature each, space-separated (the spec's way to rotate a key): a receiver holding any one
 * of them verifies the POST.
 */
export function webhookSignatureHeaders(
  secrets: string | string[],
  id: string,
  timestampSec: number,
  body: string,
): Record<string, string> {
  const signatures = (Array.isArray(secrets) ? secrets : [secrets]).map((secret) => {
    const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
    return `v1,${createHmac("sha256", key).update(`${id}.${timestampSec}.${body}`).digest("base64")}`;
  });
  return { "webhook-id": id, "webhook-timestamp": String(timestampSec), "webhook-signature": signatures.join(" ") };
}

/**
 * The secrets a user's webhook POSTs are signed with now: their current one, then the one it replaced while
 * its overlap lasts (webhook-setting.ts); none for a webhook set before signing existed.
 */
export async function webhookSigningSecrets(prisma: PrismaClient, userId: string): Promise<string[]> {
  // The database's clock, which set previousUntil, says whether the overlap still lasts.
  const rows = await prisma.$queryRaw<{ secret: string; previous: string | null }[]>`
    SELECT secret, CASE WHEN "previousUntil" > now() THEN "previousSecret" END AS previous
    FROM webhook_secret WHERE "userId" = ${userId}`;
  const k = rows[0];
  if (k === undefined) return [];
  return k.previous !== null ? [k.secret, k.previous] : [k.secret];
}
