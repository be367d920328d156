import type { WebhookSetView, WebhookView } from "@tranche/contracts";

/**
 * What `tranche webhook` says. A new secret is printed once, here: the server never shows it again, so
 * the words say to keep it now.
 */
export function webhookWords(r: WebhookView | WebhookSetView): string {
  if (r.url === null) return "No webhook: notifications stay in your inbox.";
  const lines = [`Notifications are POSTed to ${r.url}.`];
  if ("secret" in r && r.secret !== null)
    lines.push(
      `Signing secret (shown only now; keep it where your receiver can read it): ${r.secret}`,
      "Each POST carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).",
    );
  else if (r.signed) lines.push("They are signed; tranche webhook --new-secret replaces the secret.");
  else lines.push("They are not signed: tranche webhook --new-secret makes a signing secret.");
  return lines.join("\n");
}
