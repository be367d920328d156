import { isIP } from "node:net";

/**
 * The header the web server stamps with the TCP peer's address on every request (see peer-address.ts),
 * replacing whatever a client sent under that name. Route handlers cannot read the socket themselves.
 */
export const PEER_HEADER = "x-tranche-peer-address";

/** "::ffff:10.0.0.1" (an IPv4 client on a dual-stack socket) is 10.0.0.1. */
export function normalizeAddress(raw: string): string | null {
  let a = raw.trim().toLowerCase();
  if (a.startsWith("[") && a.includes("]")) a = a.slice(1, a.indexOf("]"));
  if (a.startsWith("::ffff:") && isIP(a.slice(7)) === 4) a = a.slice(7);
  return isIP(a) ? a : null;
}

export interface Net {
  v4: number | null;
  exact: string;
  bits: number;
}

const v4ToInt = (a: string) => a.split(".").reduce((n, o) => ((n << 8) | Number(o)) >>> 0, 0);

/** TRANCHE_TRUSTED_PROXIES (or another list of `variable`): comma-separated addresses or IPv4 ranges ("10.0.0.0/8"). Bad entries throw. */
export function parseTrustedProxies(raw: string | undefined, variable = "TRANCHE_TRUSTED_PROXIES"): Net[] {
  if (!raw?.trim()) return [];
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [ip, bitsText] = entry.split("/");
      const a = normalizeAddress(ip ?? "");
      const v4 = a && isIP(a) === 4;
      const bits = bitsText === undefined ? (v4 ? 32 : 128) : Number(bitsText);
      if (!a || !Number.isInteger(bits) || bits < 0 || bits > (v4 ? 32 : 128) || (!v4 && bitsText !== undefined))
        throw new Error(
          `${variable}: '${entry}' is not an address or an IPv4 range like 10.0.0.0/8 (IPv6 entries must be single addresses)`,
        );
      return { v4: v4 ? v4ToInt(a) : null, exact: a, bits };
    });
}

/** Is the address one of the nets (an address or an IPv4 range)? */
export function inNets(address: string, nets: Net[]): boolean {
  const v4 = isIP(address) === 4 ? v4ToInt(address) : null;
  return nets.some((n) => {
    if (n.v4 === null || v4 === null) return n.exact === address;
    const mask = n.bits === 0 ? 0 : (0xffffffff << (32 - n.bits)) >>> 0;
    return (v4 & mask) >>> 0 === (n.v4 & mask) >>> 0;
  });
}

/**
 * The real client address: the socket peer, unless the peer is a trusted proxy, in which case
 * X-Forwarded-For is read from the right, skipping trusted proxies, and the first other hop is the
 * client. A client's own X-Forwarded-For is never believed. Null when the peer is unknown (the
 * server did not stamp it): callers then put everyone in one bucket rather than trust a header.
 */
export function clientAddress(headers: Headers, nets: Net[]): string | null {
  const peer = normalizeAddress(headers.get(PEER_HEADER) ?? "");
  if (!peer) return null;
  if (!inNets(peer, nets)) return peer;
  const hops = (headers.get("x-forwarded-for") ?? "").split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    if (!hop) return peer; // a garbled chain: the last proxy we trust is all we know
    if (!inNets(hop, nets)) return hop;
  }
  return peer;
}
