import type { PrismaClient } from "@tranche/db";

/**
 * The webhookState of a notification not POSTed because its owner's account was disabled: someone who
 * left the lab should not keep receiving job data at an outside address. Final: re-enabling the account
 * does not send it later (the inbox row stays, and says why).
 */
export const WEBHOOK_ACCOUNT_DISABLED = "ACCOUNT_DISABLED";

/** What the owner reads on a notification that was not POSTed to their webhook, by its webhookState. */
export function webhookNotSentWords(state: string | null): string | null {
  if (state === WEBHOOK_ACCOUNT_DISABLED) return "Not sent to your webhook: your account was disabled at the time.";
  return null;
}

/**
 * Marks the waiting notifications of disabled accounts as not sent, before a round claims anything. A
 * delivery a round claimed before the account was disabled is left to its round (its claim is still
 * live), which reads the account again just before it POSTs and marks it so instead (webhooks.ts).
 * Runs in each round rather than once when the account is disabled: the notification triggers keep
 * writing PENDING rows for a disabled owner whose jobs are still ending.
 */
export async function dropDisabledAccountsWebhooks(prisma: PrismaClient, claimMs: number): Promise<number> {
  return prisma.$executeRaw`
    UPDATE notification n SET "webhookState" = ${WEBHOOK_ACCOUNT_DISABLED}, "webhookClaimedAt" = NULL
    FROM "user" u
    WHERE u.id = n."userId" AND u."disabledAt" IS NOT NULL
      AND n."webhookState" = 'PENDING'
      AND (n."webhookClaimedAt" IS NULL OR n."webhookClaimedAt" < now() - ${claimMs}::int * interval '1 millisecond')`;
}
