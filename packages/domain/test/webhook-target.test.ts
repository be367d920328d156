import { describe, expect, it } from "vitest";
import { isHostAddress, isPrivateAddress, webhookTargetProblem } from "../src/notifications/webhook-target";

describe("webhook targets", () => {
  it("private, local and multicast addresses are recognised, public ones are not", () => {
    for (const a of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fd00::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      // IPv4 inside IPv6 as URL writes it, and the other forms that reach an IPv4 host.
      "::ffff:7f00:1",
      "::ffff:a00:1",
      "0:0:0:0:0:ffff:c0a8:101",
      "::127.0.0.1",
      "::ffff:0:127.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::808:808",
      "2002:7f00:1::",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
      "fec0::1",
      "ff02::1",
      "fe80::1%eth0",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of [
      "93.184.216.34",
      "8.8.8.8",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "::ffff:808:808",
      "64:ff9b::808:808",
      "2002:808:808::1",
      "2001:db8:85a3::8a2e:370:7334",
    ])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("a webhook on this host or a private network is refused by default, and allowed when the lab says so", async () => {
    for (const url of [
      "http://127.0.0.1:5432/",
      "http://localhost:3000/x",
      "http://[::1]/x",
      "http://10.0.0.7/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::ffff:127.0.0.1]:3499/pwn",
      "http://[::ffff:10.0.0.1]/hook",
      "http://localhost.:3000/x",
    ]) {
      expect(await webhookTargetProblem(url, { allowPrivate: false }), url).toMatch(/private or local|this host/);
      expect(await webhookTargetProblem(url, { allowPrivate: true }), url).toBeNull();
    }
    expect(await webhookTargetProblem("https://93.184.216.34/hook", { allowPrivate: false })).toBeNull();
  });

  it("the benchmarking (198.18.0.0/15) and IETF protocol (192.0.0.0/24) ranges are refused, their neighbours are not", async () => {
    for (const a of [
      "198.18.0.1",
      "198.19.255.255",
      "192.0.0.0",
      "192.0.0.8",
      "192.0.0.170",
      "::ffff:198.18.0.1",
      "::ffff:c000:8",
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["198.17.255.255", "198.20.0.1", "192.0.1.1", "192.1.0.1", "191.0.0.1"])
      expect(isPrivateAddress(a), a).toBe(false);
    for (const url of ["http://198.18.0.1/", "http://192.0.0.8/", "http://[::ffff:198.19.0.1]/hook"])
      expect(await webhookTargetProblem(url, { allowPrivate: false }), url).toMatch(/private or local/);
  });

  it("a name that does not resolve is accepted when set, but refused before a POST", async () => {
    const url = "https://nowhere.invalid/hook";
    expect(await webhookTargetProblem(url, { allowPrivate: false, unresolved: "accept" })).toBeNull();
    expect(await webhookTargetProblem(url, { allowPrivate: false })).toMatch(/could not be resolved/);
  });

  it("an address of this host is recognised in every form it can be written in", () => {
    const own = ["127.0.0.1", "::1", "192.0.2.2", "2001:db8::5", "fe80::1%eth0"];
    for (const a of [
      "192.0.2.2",
      "::ffff:192.0.2.2",
      "::ffff:c000:202",
      "0:0:0:0:0:ffff:c000:0202",
      "::192.0.2.2",
      "::ffff:0:192.0.2.2",
      "64:ff9b::c000:202",
      "2002:c000:202::1",
      "2001:db8::5",
      "2001:0DB8:0:0:0:0:0:0005",
      "fe80::1",
    ])
      expect(isHostAddress(a, own), a).toBe(true);
    for (const a of ["192.0.2.3", "93.184.216.34", "::ffff:c000:203", "2001:db8::6", "not an address"])
      expect(isHostAddress(a, own), a).toBe(false);
    // An IPv4-mapped interface address (some hosts list one) is its IPv4 address too.
    expect(isHostAddress("192.0.2.9", ["::ffff:192.0.2.9"])).toBe(true);
  });

  it("a webhook at one of this host's own public addresses is refused, and allowed when the lab says so", async () => {
    const hostAddresses = () => ["127.0.0.1", "::1", "192.0.2.2", "2001:db8::5"];
    for (const url of [
      "http://192.0.2.2:56001/ada",
      "http://[::ffff:192.0.2.2]:56001/ada",
      "http://[::ffff:c000:202]/ada",
      "http://[2001:db8::5]/ada",
      "http://3221225986/ada", // 192.0.2.2 as one number
    ]) {
      expect(await webhookTargetProblem(url, { allowPrivate: false, hostAddresses }), url).toMatch(/an address of this host/);
      expect(await webhookTargetProblem(url, { allowPrivate: true, hostAddresses }), url).toBeNull();
    }
    // A name that resolves to one of them, among public ones, is refused too.
    const resolve = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "192.0.2.2", family: 4 },
    ];
    expect(await webhookTargetProblem("https://hooks.example/x", { allowPrivate: false, hostAddresses, resolve })).toMatch(
      /hooks\.example is an address of this host \(192\.0\.2\.2\)/,
    );
    expect(await webhookTargetProblem("http://192.0.2.3/ada", { allowPrivate: false, hostAddresses })).toBeNull();
  });

  it("by default the host's addresses are its interfaces' own", async () => {
    const { networkInterfaces } = await import("node:os");
    const own = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .map((i) => i.address)
      .filter((a) => !isPrivateAddress(a));
    for (const a of own) {
      const url = a.includes(":") ? `http://[${a}]/x` : `http://${a}/x`;
      expect(await webhookTargetProblem(url, { allowPrivate: false }), url).toMatch(/an address of this host/);
    }
  });
});
