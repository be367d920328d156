import "server-only";
import { applyOidcRules } from "@tranche/domain";
import { db } from "./db";

/**
 * When better-auth links a new OIDC account (a user's first single sign-on), apply the admin's
 * mapping rules (e-mail domain or group claim -> role and budgets). The groups come from the ID
 * token the server itself just received from the provider over the back channel, so its payload is
 * read without checking the signature again. The claim is `groups` unless TRANCHE_OIDC_GROUPS_CLAIM
 * names another. A failure here is logged and does not stop the sign-in (the user keeps the default
 * role, and an admin can set it by hand).
 */
export async function mapNewOidcAccount(account: { providerId: string; userId: string; idToken?: string | null }): Promise<void> {
  if (account.providerId !== "oidc") return;
  try {
    const claims = payload(account.idToken);
    const raw = claims[process.env.TRANCHE_OIDC_GROUPS_CLAIM ?? "groups"];
    const groups = Array.isArray(raw)
      ? raw.filter((g): g is string => typeof g === "string")
      : typeof raw === "string"
        ? [raw]
        : [];
    const user = await db().user.findUnique({ where: { id: account.userId }, select: { email: true } });
    if (user) await applyOidcRules(db(), account.userId, { email: user.email, groups });
  } catch (e) {
    console.error("OIDC mapping failed for user", account.userId, e);
  }
}

function payload(idToken: string | null | undefined): Record<string, unknown> {
  const part = idToken?.split(".")[1];
  if (!part) return {};
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return {};
  }
}
