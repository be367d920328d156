import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postWebhook } from "../src/notifications/webhook-post";
import { webhookTargetProblem, type ResolvedAddress } from "../src/notifications/webhook-target";
import { sendWebhook } from "../src/notifications/webhooks";

// A webhook's host is checked, then POSTed to. Between the two a name can change its answer (DNS
// rebinding: a public address to the check, 127.0.0.1 to the connection). These tests hold the POST to
// the addresses the check approved.

let server: Server | null = null;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
});

/** A local receiver; answers `status` (with a Location when 3xx) and records the paths it got. */
async function receiver(status: number, paths: string[], answer = true): Promise<number> {
  server = createServer((req, res) => {
    paths.push(req.url ?? "");
    req.resume();
    if (!answer) return;
    res.writeHead(status, status >= 300 && status < 400 ? { location: "/elsewhere" } : {});
    res.end("ok");
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  return (server!.address() as AddressInfo).port;
}

describe("webhook delivery", () => {
  it("the POST goes to the address the check approved, not to a second answer for the name", async () => {
    const answers: ResolvedAddress[][] = [[{ address: "93.184.216.34", family: 4 }], [{ address: "127.0.0.1", family: 4 }]];
    let lookups = 0;
    const seen: (ResolvedAddress[] | null)[] = [];
    const r = await sendWebhook("http://rebind.example/hook", "{}", 0, {
      timeoutMs: 1_000,
      allowPrivate: false,
      resolve: async () => answers[Math.min(lookups++, answers.length - 1)]!,
      post: async (_url, _body, o) => {
        seen.push(o.pinned);
        return 204;
      },
    });
    expect(r).toEqual({ ok: true, final: true, why: "" });
    expect(lookups).toBe(1);
    expect(seen).toEqual([[{ address: "93.184.216.34", family: 4 }]]);
  });

  it("a name that answers a private address, or none, is refused before any POST", async () => {
    let posts = 0;
    const post = async () => {
      posts++;
      return 200;
    };
    const privateAnswer = await sendWebhook("http://rebind.example/hook", "{}", 0, {
      timeoutMs: 1_000,
      allowPrivate: false,
      resolve: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "10.0.0.5", family: 4 },
      ],
      post,
    });
    expect(privateAnswer).toMatchObject({ ok: false, final: true });
    expect(privateAnswer.why).toMatch(/private or local address \(10\.0\.0\.5\)/);
    const none = await sendWebhook("http://rebind.example/hook", "{}", 0, {
      timeoutMs: 1_000,
      allowPrivate: false,
      resolve: async () => [],
      post,
    });
    expect(none).toMatchObject({ ok: false, final: true, why: "url's host rebind.example could not be resolved" });
    expect(posts).toBe(0);
  });

  it("a name that answers one of this host's own public addresses is refused before any POST", async () => {
    let posts = 0;
    const r = await sendWebhook("http://rebind.example/hook", "{}", 0, {
      timeoutMs: 1_000,
      allowPrivate: false,
      resolve: async () => [{ address: "::ffff:192.0.2.2", family: 6 }],
      hostAddresses: () => ["127.0.0.1", "192.0.2.2"],
      post: async () => {
        posts++;
        return 200;
      },
    });
    expect(r).toMatchObject({ ok: false, final: true });
    expect(r.why).toMatch(/an address of this host \(::ffff:192\.0\.2\.2\)/);
    expect(posts).toBe(0);
  });

  it("a lookup that never answers is given up within the try's timeout, and retried like a POST that timed out", async () => {
    let posts = 0;
    const opts = {
      timeoutMs: 200,
      allowPrivate: false,
      resolve: () => new Promise<ResolvedAddress[]>(() => undefined),
      post: async () => {
        posts++;
        return 200;
      },
    };
    const started = Date.now();
    const first = await sendWebhook("http://slow-dns.example/hook", "{}", 0, opts);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first).toEqual({ ok: false, final: false, why: "url's host slow-dns.example did not resolve within 200 ms" });
    expect(await sendWebhook("http://slow-dns.example/hook", "{}", 2, opts)).toMatchObject({ ok: false, final: true });
    expect(posts).toBe(0);
  });

  it("the lookup's time counts within the try's timeout: the POST gets what is left", async () => {
    const given: number[] = [];
    const r = await sendWebhook("http://slow-dns.example/hook", "{}", 0, {
      timeoutMs: 1_000,
      allowPrivate: false,
      resolve: () => new Promise((ok) => setTimeout(() => ok([{ address: "93.184.216.34", family: 4 }]), 400)),
      post: async (_url, _body, o) => {
        given.push(o.timeoutMs);
        return 204;
      },
    });
    expect(r.ok).toBe(true);
    expect(given[0]).toBeGreaterThan(0);
    expect(given[0]).toBeLessThanOrEqual(620);
  });

  it("setting a webhook whose name does not resolve in time is accepted, as one that does not resolve yet", async () => {
    const problem = await webhookTargetProblem("https://slow-dns.example/hook", {
      allowPrivate: false,
      unresolved: "accept",
      lookupTimeoutMs: 100,
      resolve: () => new Promise<ResolvedAddress[]>(() => undefined),
    });
    expect(problem).toBeNull();
  });

  it("postWebhook connects to the pinned address even for a name no resolver knows", async () => {
    const paths: string[] = [];
    const port = await receiver(200, paths);
    // `.invalid` never resolves (RFC 6761): only the pinned address can have carried the request.
    const status = await postWebhook(`http://hook.invalid:${port}/hook`, '{"a":1}', {
      timeoutMs: 2_000,
      pinned: [{ address: "127.0.0.1", family: 4 }],
    });
    expect(status).toBe(200);
    expect(paths).toEqual(["/hook"]);
  });

  it("a redirect is an answer, not followed; a receiver that never answers times out", async () => {
    const paths: string[] = [];
    const port = await receiver(302, paths);
    const pinned = [{ address: "127.0.0.1", family: 4 }];
    expect(await postWebhook(`http://hook.invalid:${port}/hook`, "{}", { timeoutMs: 2_000, pinned })).toBe(302);
    expect(paths).toEqual(["/hook"]);
    await new Promise<void>((r) => server!.close(() => r()));
    server = null;

    const silentPaths: string[] = [];
    const silent = await receiver(200, silentPaths, false);
    const r = await sendWebhook(`http://hook.invalid:${silent}/hook`, "{}", 0, {
      timeoutMs: 300,
      allowPrivate: false,
      resolve: async () => [{ address: "93.184.216.34", family: 4 }],
      post: (url, body, o) => postWebhook(url, body, { ...o, pinned }),
    });
    expect(r).toEqual({ ok: false, final: false, why: "no answer within 300 ms" });
  });
});
