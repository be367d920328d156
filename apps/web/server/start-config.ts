import { parseTrustedProxies } from "./client-address";

type Env = Record<string, string | undefined>;

/**
 * The web app's address lists, checked when it starts: a malformed TRANCHE_TRUSTED_PROXIES or
 * TRANCHE_METRICS_ALLOW stops the start with one line naming the variable and the entry, instead of
 * failing the first sign-in or scrape that reads it. Returns that line's message, or null when all is well.
 */
export function webConfigProblem(env: Env = process.env): string | null {
  try {
    parseTrustedProxies(env.TRANCHE_TRUSTED_PROXIES);
    parseTrustedProxies(env.TRANCHE_METRICS_ALLOW, "TRANCHE_METRICS_ALLOW");
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
