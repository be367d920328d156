import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// The proxy leaves out the API and any request with a body (Next would copy the body), so the server
// passes those through the front gate itself, before Next, reading no body.
let server: Server;
let port: number;
const reached: string[] = [];

beforeAll(async () => {
  vi.stubEnv("TRANCHE_PUBLIC_URL", "http://127.0.0.1:3000"); // its sessions host: localhost:3000
  const { gateUnproxiedRequests } = await import("../server/unproxied-gate");
  gateUnproxiedRequests();
  server = createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.end("next");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function get(path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, headers: { host } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Declares a 9 MB body and sends 10 bytes of it: the answer must not wait for the rest. */
function post(path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, path, method: "POST", headers: { host, "content-length": String(9 * 1024 * 1024) } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, text });
      });
    });
    req.on("error", reject);
    req.write("0123456789");
  });
}

describe("a request the proxy leaves out", () => {
  it("on the sessions host is refused at once, unread, and Next never sees it", async () => {
    for (const path of ["/login", "/api/agent/v1/heartbeat", "/api/no-such-route"]) {
      const r = await post(path, "localhost:3000");
      expect(r.status, path).toBe(404);
      expect(r.text).toBe("This address serves interactive sessions only; Tranche itself is at http://127.0.0.1:3000\n");
    }
    const r = await get("/api/health", "localhost:3000");
    expect(r.status).toBe(404);
    expect(reached).toEqual([]);
  });

  it("with a path that cannot be decoded is a 400, in the API's shape under /api/", async () => {
    expect((await post("/queue/%E0%A4%A", "127.0.0.1:3000")).status).toBe(400);
    const api = await get("/api/v1/budgets/%E0%A4%A/members", "127.0.0.1:3000");
    expect(api.status).toBe(400);
    expect(JSON.parse(api.text)).toMatchObject({ error: { code: "BAD_INPUT" } });
    expect(reached).toEqual([]);
  });

  it("on the app's host goes on to Next, as the session proxy does on the sessions host", async () => {
    await post("/login", "127.0.0.1:3000");
    await post("/api/agent/v1/heartbeat", "127.0.0.1:3000");
    await post("/api/v1/sessions/12/proxy/api/contents", "localhost:3000");
    await get("/api/health", "127.0.0.1:3000");
    expect(reached).toEqual([
      "POST /login",
      "POST /api/agent/v1/heartbeat",
      "POST /api/v1/sessions/12/proxy/api/contents",
      "GET /api/health",
    ]);
  });
});
