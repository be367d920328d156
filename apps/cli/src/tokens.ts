import type { Command } from "commander";
import type { ApiTokenView } from "@tranche/contracts";
import { formatDuration } from "@tranche/contracts/format";
import { api, loadConfig } from "./client";
import { ago, secondsLeft, table, type Out } from "./format";

/** Where a token stands, in words: "live, expires in 89 d", "revoked 2 h ago", "expired 3 d ago". */
function standing(t: ApiTokenView, now = Date.now()): string {
  if (t.revokedAt) return `revoked ${ago(t.revokedAt, now)} ago`;
  if (t.expiresAt === null) return "live";
  const left = secondsLeft(t.expiresAt, now);
  return left > 0 ? `live, expires in ${formatDuration(left)}` : `expired ${formatDuration(-left)} ago`;
}

/** `tranche tokens` and `tranche token revoke`: your API tokens, and ending one (created in the web app only). */
export function registerTokens(program: Command, out: Out): void {
  program
    .command("tokens")
    .description("your API tokens: name, first characters, last use, expiry (new ones are made in the web app)")
    .action(async () => {
      const config = loadConfig();
      const { tokens } = await api<{ tokens: ApiTokenView[] }>(config, "GET", "/tokens");
      const mine = config.token.slice(0, 10);
      out({ tokens }, () =>
        tokens.length === 0
          ? "No API tokens."
          : table(
              ["ID", "NAME", "STARTS WITH", "CREATED", "LAST USED", "STANDING"],
              tokens.map((t) => [
                t.id,
                t.name,
                `${t.prefix}…${t.prefix === mine && !t.revokedAt ? " (this one)" : ""}`,
                `${ago(t.createdAt)} ago`,
                t.lastUsedAt ? `${ago(t.lastUsedAt)} ago` : "never",
                standing(t),
              ]),
            ),
      );
    });

  program
    .command("token")
    .description("end one of your API tokens")
    .command("revoke")
    .description("revoke an API token (from `tranche tokens`): refused at once everywhere")
    .argument("<id>", "the token's id")
    .action(async (id: string) => {
      const { token } = await api<{ token: ApiTokenView }>(loadConfig(), "POST", `/tokens/${encodeURIComponent(id)}/revoke`);
      out({ token }, () => `Token ${token.name} (${token.prefix}…) is revoked: every call with it is refused from now on.`);
    });
}
