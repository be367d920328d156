import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * Where a webhook may point. A webhook is a request the platform makes on a user's behalf from inside
 * the lab's network, so by default it may not reach this host or a private network (loopback,
 * RFC 1918, carrier-grade NAT, link-local, benchmarking 198.18.0.0/15, IETF protocol assignments
 * 192.0.0.0/24, unique-local IPv6, multicast): otherwise any researcher
 * could make the worker POST to the embedded Postgres, an agent or a cloud metadata address. Nor may it
 * reach any address of this host's own interfaces (isHostAddress), a public one included: a service
 * listening on 0.0.0.0 answers there too.
 * `TRANCHE_WEBHOOK_ALLOW_PRIVATE=1` lifts the rule for labs whose hook receivers are internal.
 */
export function privateWebhooksAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TRANCHE_WEBHOOK_ALLOW_PRIVATE === "1";
}

/** True for addresses a webhook may not reach unless private targets are allowed. */
export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) {
    const [a, b, c] = address.split(".").map(Number) as [number, number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 192 && b === 0 && c === 0) || // IETF protocol assignments 192.0.0.0/24 (NAT64 and DS-Lite among them)
      (a === 198 && (b === 18 || b === 19)) || // benchmarking 198.18.0.0/15: network test equipment
      a >= 224
    );
  }
  if (v === 6) {
    const g = ipv6Groups(address);
    if (g === null) return true;
    const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
    const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
    // IPv4 inside IPv6, in every form a host or a translator reaches it by: mapped (::ffff:a.b.c.d, which
    // URL writes as ::ffff:7f00:1), compatible (::a.b.c.d, :: and ::1 among them), translated
    // (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::).
    if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return zeros(6, 8) || isPrivateAddress(v4(g[6]!, g[7]!));
    if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return isPrivateAddress(v4(g[6]!, g[7]!));
    if (g[0] === 0x64 && g[1] === 0xff9b) return g[2] !== 0 || !zeros(3, 6) || isPrivateAddress(v4(g[6]!, g[7]!));
    if (g[0] === 0x2002) return isPrivateAddress(v4(g[1]!, g[2]!));
    const top = g[0]!;
    return (
      (top & 0xfe00) === 0xfc00 || // unique local fc00::/7
      (top & 0xffc0) === 0xfe80 || // link-local fe80::/10
      (top & 0xffc0) === 0xfec0 || // site-local fec0::/10 (deprecated, still routed inside some labs)
      (top & 0xff00) === 0xff00 || // multicast
      (top === 0x2001 && g[1] === 0) // Teredo 2001::/32: an IPv4 address hidden in the bits
    );
  }
  return true; // not an address at all: refuse rather than guess
}

/** An IPv6 address's eight 16-bit groups (a trailing dotted IPv4 part as the last two), or null. */
function ipv6Groups(address: string): number[] | null {
  let x = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(x);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    x = `${x.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = x.split("::");
  if (halves.length > 2) return null;
  const part = (h: string) => (h === "" ? [] : h.split(":").map((p) => parseInt(p, 16)));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 0 : fill !== 0) return null;
  const groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  return groups.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? groups : null;
}

/**
 * The forms an address can be compared by: an IPv4 address as is; an IPv6 address as its eight groups
 * (zone dropped), plus the IPv4 address inside it when it carries one the way isPrivateAddress reads
 * (mapped, compatible, translated, NAT64, 6to4). Empty for something that is not an address.
 */
function addressForms(address: string): string[] {
  const v = isIP(address.replace(/%.*$/, ""));
  if (v === 4) return [address];
  if (v !== 6) return [];
  const g = ipv6Groups(address);
  if (g === null) return [];
  const forms = [g.map((x) => x.toString(16)).join(":")];
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0) && !zeros(6, 8)) forms.push(v4(g[6]!, g[7]!));
  else if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) forms.push(v4(g[6]!, g[7]!));
  else if (g[0] === 0x64 && g[1] === 0xff9b) forms.push(v4(g[6]!, g[7]!));
  else if (g[0] === 0x2002) forms.push(v4(g[1]!, g[2]!));
  return forms;
}

/**
 * True when `address` is one of `hostAddresses` (this host's own), in any of the forms it can be written
 * in: 192.0.2.2 is also ::ffff:192.0.2.2 and ::ffff:c000:202. Pure: the caller gives the host's addresses.
 */
export function isHostAddress(address: string, hostAddresses: Iterable<string>): boolean {
  const own = new Set<string>();
  for (const a of hostAddresses) for (const f of addressForms(a)) own.add(f);
  return addressForms(address).some((f) => own.has(f));
}

/** This host's own addresses, every family (os.networkInterfaces() by default; tests give their own). */
export type HostAddresses = () => Iterable<string>;

/**
 * The addresses of the interfaces of the host this runs on, read at each check (an interface can gain an
 * address). The web app checks a webhook when it is set and the worker before each POST; the two may
 * run on different hosts, so each refuses its own host's addresses: the worker's check is the one that
 * guards where the POST goes.
 */
export const systemHostAddresses: HostAddresses = () =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));

/** An address a webhook's host resolved to, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests give their own). */
export type ResolveHost = (host: string) => Promise<ResolvedAddress[]>;

const systemResolve: ResolveHost = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Where a webhook's POST may connect: the addresses its host resolved to when checked, or `null` to
 * resolve as usual (private targets allowed: there is nothing to keep it from). Connecting to exactly
 * the checked addresses closes DNS rebinding: a name that answers a public address to the check and
 * 127.0.0.1 a moment later to the connection (a zero TTL) would otherwise reach this host.
 */
export type WebhookTarget = { problem: string; retry?: boolean } | { problem: null; pinned: ResolvedAddress[] | null };

/** How long a webhook's host name may take to resolve (dns.lookup has no limit of its own). */
export const WEBHOOK_LOOKUP_TIMEOUT_MS = 5_000;

class LookupTimeout extends Error {}

/**
 * `resolve(host)`, or LookupTimeout after `ms`. The lookup itself cannot be cancelled (it runs in a
 * libuv thread); it is only no longer waited for.
 */
function resolveWithin(resolve: ResolveHost, host: string, ms: number): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LookupTimeout()), ms);
  });
  return Promise.race([resolve(host), late]).finally(() => clearTimeout(timer));
}

/** How checkWebhookTarget checks; everything but `unresolved` is there for tests. */
export interface WebhookTargetOptions {
  allowPrivate?: boolean;
  unresolved?: "accept" | "refuse";
  resolve?: ResolveHost;
  hostAddresses?: HostAddresses;
  /** How long the name may take to resolve (WEBHOOK_LOOKUP_TIMEOUT_MS by default). */
  lookupTimeoutMs?: number;
}

/**
 * Checks `url` as a webhook now: its host may not resolve to a private address, nor to an address of
 * this host, unless those are allowed. Checked when the user sets it (a name that does not resolve yet,
 * or not in time, is accepted then: `unresolved: "accept"`) and again before each POST, where it must
 * resolve (a name can be pointed elsewhere after it was set), and the POST then connects to the
 * addresses checked here. A lookup that takes longer than `lookupTimeoutMs` is given up; before a POST
 * that is a problem worth retrying (`retry`), unlike a name that does not resolve.
 */
export async function checkWebhookTarget(url: string, opts: WebhookTargetOptions = {}): Promise<WebhookTarget> {
  const allowPrivate = opts.allowPrivate ?? privateWebhooksAllowed();
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return { problem: "url is not a valid address" };
  }
  if (allowPrivate) return { problem: null, pinned: null };
  // A name's trailing dot ("localhost.") is the same name, fully qualified.
  const name = host.replace(/\.$/, "").toLowerCase();
  if (name === "localhost" || name.endsWith(".localhost"))
    return { problem: "url points at this host; webhooks may not reach it" };
  const v = isIP(host);
  let addresses: ResolvedAddress[];
  try {
    addresses =
      v !== 0
        ? [{ address: host, family: v }]
        : await resolveWithin(opts.resolve ?? systemResolve, host, opts.lookupTimeoutMs ?? WEBHOOK_LOOKUP_TIMEOUT_MS);
  } catch (e) {
    if (opts.unresolved === "accept") return { problem: null, pinned: null };
    return e instanceof LookupTimeout
      ? {
          problem: `url's host ${host} did not resolve within ${opts.lookupTimeoutMs ?? WEBHOOK_LOOKUP_TIMEOUT_MS} ms`,
          retry: true,
        }
      : { problem: `url's host ${host} could not be resolved` };
  }
  if (addresses.length === 0) return { problem: `url's host ${host} could not be resolved` };
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad !== undefined)
    return {
      problem: `url's host ${host} is a private or local address (${bad.address}); webhooks may only reach public addresses unless TRANCHE_WEBHOOK_ALLOW_PRIVATE=1`,
    };
  const own = [...(opts.hostAddresses ?? systemHostAddresses)()];
  const mine = addresses.find((a) => isHostAddress(a.address, own));
  if (mine !== undefined)
    return {
      problem: `url's host ${host} is an address of this host (${mine.address}); webhooks may not reach it unless TRANCHE_WEBHOOK_ALLOW_PRIVATE=1`,
    };
  return { problem: null, pinned: addresses };
}

/** Why `url` may not be used as a webhook now, or null when it may (checkWebhookTarget). */
export async function webhookTargetProblem(url: string, opts: WebhookTargetOptions = {}): Promise<string | null> {
  return (await checkWebhookTarget(url, opts)).problem;
}
