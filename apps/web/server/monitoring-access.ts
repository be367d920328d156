import { timingSafeEqual } from "node:crypto";
import { clientAddress, inNets, parseTrustedProxies, type Net } from "./client-address";

type Env = Record<string, string | undefined>;

export interface MonitoringAccess {
  /** TRANCHE_METRICS_TOKEN: scrapers send `Authorization: Bearer <it>`. */
  token: string | null;
  /** TRANCHE_METRICS_ALLOW: client addresses or IPv4 ranges that may scrape without the token. */
  allow: Net[];
  trustedProxies: Net[];
  /** The demo (TRANCHE_DEMO not 0): with neither setting, /metrics is open; a lab's deployment is closed. */
  demo: boolean;
}

export function monitoringAccessFromEnv(env: Env = process.env): MonitoringAccess {
  return {
    token: env.TRANCHE_METRICS_TOKEN?.trim() || null,
    allow: parseTrustedProxies(env.TRANCHE_METRICS_ALLOW, "TRANCHE_METRICS_ALLOW"),
    trustedProxies: parseTrustedProxies(env.TRANCHE_TRUSTED_PROXIES),
    demo: env.TRANCHE_DEMO !== "0",
  };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Does the request carry the metrics token? */
export function hasMetricsToken(req: Request, access: MonitoringAccess): boolean {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get("authorization")?.trim() ?? "");
  return !!access.token && !!m && sameSecret(m[1]!, access.token);
}

/**
 * Who may scrape /metrics: in the demo, anyone when neither TRANCHE_METRICS_TOKEN nor TRANCHE_METRICS_ALLOW
 * is set; otherwise a request with the token or from an allowed address (with neither set outside the
 * demo, nobody: the per-budget series are the lab's business). Returns the refusal, or null.
 */
export function metricsRefusal(req: Request, access: MonitoringAccess): Response | null {
  if (!access.token && access.allow.length === 0 && access.demo) return null;
  if (hasMetricsToken(req, access)) return null;
  const address = clientAddress(req.headers, access.trustedProxies);
  if (address && inNets(address, access.allow)) return null;
  return new Response(
    !access.token && access.allow.length === 0
      ? "# /metrics is closed: set TRANCHE_METRICS_TOKEN (scrapers send 'Authorization: Bearer <it>') or TRANCHE_METRICS_ALLOW (scraper addresses)\n"
      : "# /metrics needs 'Authorization: Bearer <TRANCHE_METRICS_TOKEN>' or a scraper address in TRANCHE_METRICS_ALLOW\n",
    { status: 401, headers: { "content-type": "text/plain", "www-authenticate": "Bearer", "cache-control": "no-store" } },
  );
}
