import type { Command } from "commander";
import type { ApiTokenView } from "@tranche/contracts";
import { formatDuration } from "@tranche/contracts/format";
import { api, CliError, loadConfig } from "./client";
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
              ["NAME", "STARTS WITH", "CREATED", "LAST USED", "STANDING"],
              tokens.map((t) => [
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
    .argument("<token>", "its name, or the characters it starts with (e.g. trn_Ab3xYz), as `tranche tokens` shows")
    .action(async (given: string) => {
      const config = loadConfig();
      const { tokens } = await api<{ tokens: ApiTokenView[] }>(config, "GET", "/tokens");
      const id = tokenToRevoke(tokens, given);
      const { token } = await api<{ token: ApiTokenView }>(config, "POST", `/tokens/${encodeURIComponent(id)}/revoke`);
      out({ token }, () => `Token ${token.name} (${token.prefix}…) is revoked: every call with it is refused from now on.`);
    });
}

/**
 * Which of your tokens `tranche token revoke X` means: the one whose first characters X is (as `tranche
 * tokens` shows them, "…" or not), else the live one named X; otherwise X goes to the server as a token's
 * id (--json shows ids; an admin may revoke another person's), which says when there is no such token.
 * Two live tokens of one name are told apart by their first characters.
 */
export function tokenToRevoke(tokens: readonly ApiTokenView[], given: string): string {
  const g = given.trim().replace(/…$/, "");
  const byPrefix = tokens.filter((t) => t.prefix === g);
  if (byPrefix.length === 1) return byPrefix[0]!.id;
  const byId = tokens.find((t) => t.id === g);
  if (byId) return byId.id;
  const named = tokens.filter((t) => t.name === g);
  const live = named.filter((t) => !t.revokedAt);
  const pick = live.length > 0 ? live : named;
  if (pick.length === 1) return pick[0]!.id;
  if (pick.length > 1)
    throw new CliError(
      `You have ${pick.length} tokens named '${g}': name one by the characters it starts with (${pick.map((t) => `${t.prefix}…`).join(", ")})`,
    );
  return g; // none of yours: the server says whose it is, or that there is none
}
