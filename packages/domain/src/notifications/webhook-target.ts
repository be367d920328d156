import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * Where a webhook may point. A webhook is a request the platform makes on a user's behalf from inside
 * the lab's network, so by default it may not reach this host or a private network (loopback,
 * RFC 1918, carrier-grade NAT, link-local, unique-local IPv6, multicast): otherwise any researcher
 * could make the worker POST to the embedded Postgres, an agent or a cloud metadata address.
 * `TRANCHE_WEBHOOK_ALLOW_PRIVATE=1` lifts the rule for labs whose hook receivers are internal.
 */
export function privateWebhooksAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TRANCHE_WEBHOOK_ALLOW_PRIVATE === "1";
}

/** True for addresses a webhook may not reach unless private targets are allowed. */
export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) {
    const [a, b] = address.split(".").map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      a >= 224
    );
  }
  if (v === 6) {
    const x = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
    if (mapped) return isPrivateAddress(mapped[1]!);
    return x === "::" || x === "::1" || /^f[cd]/.test(x) || /^fe[89ab]/.test(x) || x.startsWith("ff");
  }
  return true; // not an address at all: refuse rather than guess
}

/**
 * Why `url` may not be used as a webhook now, or null when it may: its host may not resolve to a
 * private address unless those are allowed. Checked when the user sets it (a name that does not
 * resolve yet is accepted then: `unresolved: "accept"`) and again before each POST, where it must
 * resolve (a name can be pointed elsewhere after it was set).
 */
export async function webhookTargetProblem(
  url: string,
  opts: { allowPrivate?: boolean; unresolved?: "accept" | "refuse" } = {},
): Promise<string | null> {
  const allowPrivate = opts.allowPrivate ?? privateWebhooksAllowed();
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return "url is not a valid address";
  }
  if (allowPrivate) return null;
  if (host === "localhost" || host.endsWith(".localhost")) return "url points at this host; webhooks may not reach it";
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return opts.unresolved === "accept" ? null : `url's host ${host} could not be resolved`;
  }
  const bad = addresses.find(isPrivateAddress);
  return bad === undefined
    ? null
    : `url's host ${host} is a private or local address (${bad}); webhooks may only reach public addresses unless TRANCHE_WEBHOOK_ALLOW_PRIVATE=1`;
}
