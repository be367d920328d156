import "server-only";
import { clientAddress, parseTrustedProxies, type Net } from "./client-address";

let proxies: Net[] | undefined;

/**
 * The address an agent request comes from, as sign-in reads it: the socket's peer, or the client a
 * trusted proxy (TRANCHE_TRUSTED_PROXIES) names. Null when unknown: all such requests share one bound.
 */
export function agentClient(req: Request): string | null {
  return clientAddress(req.headers, (proxies ??= parseTrustedProxies(process.env.TRANCHE_TRUSTED_PROXIES)));
}
