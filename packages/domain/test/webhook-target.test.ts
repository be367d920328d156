import { describe, expect, it } from "vitest";
import { isPrivateAddress, webhookTargetProblem } from "../src/notifications/webhook-target";

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
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).toBe(false);
  });

  it("a webhook on this host or a private network is refused by default, and allowed when the lab says so", async () => {
    for (const url of [
      "http://127.0.0.1:5432/",
      "http://localhost:3000/x",
      "http://[::1]/x",
      "http://10.0.0.7/hook",
      "http://169.254.169.254/latest/meta-data",
    ]) {
      expect(await webhookTargetProblem(url, { allowPrivate: false }), url).toMatch(/private or local|this host/);
      expect(await webhookTargetProblem(url, { allowPrivate: true }), url).toBeNull();
    }
    expect(await webhookTargetProblem("https://93.184.216.34/hook", { allowPrivate: false })).toBeNull();
  });

  it("a name that does not resolve is accepted when set, but refused before a POST", async () => {
    const url = "https://nowhere.invalid/hook";
    expect(await webhookTargetProblem(url, { allowPrivate: false, unresolved: "accept" })).toBeNull();
    expect(await webhookTargetProblem(url, { allowPrivate: false })).toMatch(/could not be resolved/);
  });
});
