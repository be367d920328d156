import type { PrismaClient } from "@tranche/db";
import type { WebhookSetView, WebhookView } from "@tranche/contracts";
import type { Actor } from "../auth/actor";
import { badInput } from "../errors";
import { makeWebhookSecret } from "./webhook-signature";
import { webhookTargetProblem } from "./webhook-target";

/**
 * The caller's webhook (null: none). Notifications written from now on are also POSTed there, signed
 * with a new secret made here: the answer carries it, and nothing else ever does (its owner cannot read
 * it back either), so setting the webhook again is also how a secret that leaked is replaced.
 * Turning the webhook off drops its secret.
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
      : prisma.webhookSecret.upsert({
          where: { userId: actor.id },
          create: { userId: actor.id, secret },
          update: { secret, createdAt: new Date() },
        }),
  ]);
  return { url, signed: secret !== null, secret };
}

/**
 * A new signing secret for the caller's webhook, in place of the old one at once (the next POST is
 * signed with it). Refused, changing nothing, when they have no webhook. The user row is locked first,
 * as setWebhook's update does, so a webhook turned off meanwhile gets no secret.
 */
export async function newWebhookSecret(prisma: PrismaClient, actor: Actor): Promise<WebhookSetView> {
  const secret = makeWebhookSecret();
  const rows = await prisma.$queryRaw<{ url: string }[]>`
    WITH u AS (SELECT id, "webhookUrl" FROM "user" WHERE id = ${actor.id} AND "webhookUrl" IS NOT NULL FOR UPDATE)
    INSERT INTO webhook_secret ("userId", secret) SELECT id, ${secret} FROM u
    ON CONFLICT ("userId") DO UPDATE SET secret = EXCLUDED.secret, "createdAt" = now()
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
