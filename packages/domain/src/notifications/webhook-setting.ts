import { Prisma, type PrismaClient } from "@tranche/db";
import type { WebhookSetView, WebhookView } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { badInput } from "../errors";
import { makeWebhookSecret } from "./webhook-signature";
import { webhookTargetProblem } from "./webhook-target";

/**
 * How long a replaced secret still signs POSTs beside its successor: a day for the person to give the new
 * one to their receiver and redeploy it, without a POST it cannot verify meanwhile.
 */
export const WEBHOOK_SECRET_OVERLAP_HOURS = 24;

/** An upsert's SET that makes EXCLUDED.secret current and keeps the one it replaces for the overlap. */
const keepReplaced = Prisma.sql`secret = EXCLUDED.secret, "createdAt" = now(), "previousSecret" = webhook_secret.secret,
  "previousUntil" = now() + ${WEBHOOK_SECRET_OVERLAP_HOURS}::int * interval '1 hour'`;

/**
 * The caller's webhook (null: none). Notifications written from now on are also POSTed there, signed
 * with a new secret made here: the answer carries it, and nothing else ever does (its owner cannot read
 * it back either), so setting the webhook again is also how a secret that leaked is replaced.
 * The secret it replaces, if any, still signs beside it for WEBHOOK_SECRET_OVERLAP_HOURS, even at a new
 * address: a receiver moved there has the old one until it is redeployed. Turning the webhook off drops both.
 */
export async function setWebhook(prisma: PrismaClient, actor: Actor, url: string | null): Promise<WebhookSetView> {
  if (url !== null) {
    const problem = await webhookTargetProblem(url, { unresolved: "accept" });
    if (problem !== null) throw badInput(problem, "url");
  }
  const secret = url === null ? null : makeWebhookSecret();
  await prisma.$transaction([
    prisma.user.update({ where: { id: actor.id }, data: { webhookUrl: url } }),
    secret === null
      ? prisma.webhookSecret.deleteMany({ where: { userId: actor.id } })
      : prisma.$executeRaw`
          INSERT INTO webhook_secret ("userId", secret) VALUES (${actor.id}, ${secret})
          ON CONFLICT ("userId") DO UPDATE SET ${keepReplaced}`,
  ]);
  return { url, signed: secret !== null, secret };
}

/**
 * A new signing secret for the caller's webhook: the next POST is signed with it, and with the old one
 * too for WEBHOOK_SECRET_OVERLAP_HOURS, so their receiver keeps verifying POSTs until it has the new one.
 * Refused, changing nothing, when they have no webhook. The user row is locked first, as setWebhook's
 * update does, so a webhook turned off meanwhile gets no secret.
 */
export async function newWebhookSecret(prisma: PrismaClient, actor: Actor): Promise<WebhookSetView> {
  const secret = makeWebhookSecret();
  const rows = await prisma.$queryRaw<{ url: string }[]>`
    WITH u AS (SELECT id, "webhookUrl" FROM "user" WHERE id = ${actor.id} AND "webhookUrl" IS NOT NULL FOR UPDATE)
    INSERT INTO webhook_secret ("userId", secret) SELECT id, ${secret} FROM u
    ON CONFLICT ("userId") DO UPDATE SET ${keepReplaced}
    RETURNING (SELECT "webhookUrl" FROM u) AS url`;
  if (rows.length === 0) throw badInput("You have no webhook, so there is no secret to replace: set a webhook first");
  return { url: rows[0]!.url, signed: true, secret };
}

/** The caller's webhook and whether its POSTs are signed; never the secret. */
export async function getWebhook(prisma: PrismaClient, actor: Actor): Promise<WebhookView> {
  const u = await prisma.user.findUnique({
    where: { id: actor.id },
    select: { webhookUrl: true, webhookSecret: { select: { userId: true } } },
  });
  return { url: u?.webhookUrl ?? null, signed: u?.webhookSecret != null };
}
