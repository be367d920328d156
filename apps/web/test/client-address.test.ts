import { describe, expect, it } from "vitest";
import { PEER_HEADER, clientAddress, parseTrustedProxies } from "../server/client-address";

const h = (peer: string | null, xff?: string) => {
  const headers = new Headers();
  if (peer !== null) headers.set(PEER_HEADER, peer);
  if (xff !== undefined) headers.set("x-forwarded-for", xff);
  return headers;
};

describe("clientAddress", () => {
  it("is the socket peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddress(h("203.0.113.7", "1.2.3.4"), [])).toBe("203.0.113.7");
    expect(clientAddress(h("::ffff:203.0.113.7"), [])).toBe("203.0.113.7");
  });
  it("is unknown (one shared bucket) when the server did not stamp the peer", () => {
    expect(clientAddress(h(null, "1.2.3.4"), [])).toBeNull();
  });
  it("walks X-Forwarded-For from the right past trusted proxies only", () => {
    const nets = parseTrustedProxies("10.0.0.0/8, 192.0.2.1");
    expect(clientAddress(h("10.1.2.3", "6.6.6.6, 198.51.100.4, 192.0.2.1"), nets)).toBe("198.51.100.4");
    expect(clientAddress(h("10.1.2.3"), nets)).toBe("10.1.2.3");
    expect(clientAddress(h("198.51.100.9", "10.0.0.1"), nets)).toBe("198.51.100.9");
  });
  it("names a bad TRANCHE_TRUSTED_PROXIES entry", () => {
    expect(() => parseTrustedProxies("10.0.0.0/33")).toThrow(/TRANCHE_TRUSTED_PROXIES: '10.0.0.0\/33' is not an address/);
    expect(() => parseTrustedProxies("proxy.local")).toThrow(/'proxy.local'/);
  });
});
