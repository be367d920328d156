import { describe, expect, it } from "vitest";
import { sessionsHostRefusal } from "../server/sessions-gate";

// The front gate (apps/web/server/front-gate.ts) before every route of the web app: on the sessions
// host only the session proxy passes. `next start` builds every request URL from the address it
// listens on; the Host header says which name the browser used.
const origins = { app: "http://127.0.0.1:3000", sessions: "http://localhost:3000" };
const at = (host: string, method: string, path: string, headers: Record<string, string> = {}) =>
  sessionsHostRefusal(new Request(`http://127.0.0.1:3000${path}`, { method, headers: { host, ...headers } }), origins);

describe("the sessions host's front gate", () => {
  it("passes the session proxy and nothing else", async () => {
    expect(at("localhost:3000", "GET", "/api/v1/sessions/12/proxy/")).toBeNull();
    expect(at("localhost:3000", "POST", "/api/v1/sessions/12/proxy/exec")).toBeNull();
    expect(at("localhost:3000", "GET", "/api/v1/sessions/12/proxy")).toBeNull();
    const refused = [
      ["POST", "/api/trpc/token.create"],
      ["GET", "/api/trpc/job.list"],
      ["POST", "/api/auth/sign-in/email"],
      ["GET", "/api/auth/get-session"],
      ["GET", "/api/v1/me"],
      ["GET", "/api/v1/sessions/12/open?state=x"],
      ["GET", "/api/v1/sessions/12/proxyx"],
      ["POST", "/api/agent/v1/heartbeat"],
      ["GET", "/api/health"],
      ["GET", "/metrics"],
      ["GET", "/_next/static/chunks/main.js"],
      ["POST", "/jobs"],
    ];
    for (const [method, path] of refused) {
      const r = at("localhost:3000", method!, path!);
      expect(r?.status, `${method} ${path}`).toBe(404);
      expect(await r!.text()).toBe("This address serves interactive sessions only; Tranche itself is at http://127.0.0.1:3000\n");
    }
  });

  it("sends a person who typed the sessions address for a page to the app", () => {
    const r = at("localhost:3000", "GET", "/jobs?mine=1", { "sec-fetch-mode": "navigate" });
    expect(r?.status).toBe(307);
    expect(r?.headers.get("location")).toBe("http://127.0.0.1:3000/jobs?mine=1");
    // A page's own fetch of an app page is no navigation: nothing.
    expect(at("localhost:3000", "GET", "/jobs", { "sec-fetch-mode": "cors" })?.status).toBe(404);
  });

  it("tells the hosts apart by Host or a reverse proxy's X-Forwarded-Host, and leaves the app's requests alone", () => {
    expect(at("127.0.0.1:3000", "GET", "/api/trpc/job.list")).toBeNull();
    expect(at("tranche-web:3000", "POST", "/api/agent/v1/heartbeat")).toBeNull();
    expect(at("127.0.0.1:3000", "GET", "/api/trpc/job.list", { "x-forwarded-host": "localhost:3000" })?.status).toBe(404);
    expect(at("LOCALHOST:3000", "GET", "/api/trpc/job.list")?.status).toBe(404);
    // A proxy that appends to X-Forwarded-Host keeps what a session's script sent first.
    const appended = { "x-forwarded-host": "127.0.0.1:3000, localhost:3000" };
    expect(at("tranche-web:3000", "GET", "/api/trpc/job.list", appended)?.status).toBe(404);
    const https = { app: "https://tranche.lab.example", sessions: "https://sessions.lab.example" };
    const r = sessionsHostRefusal(
      new Request("http://127.0.0.1:3000/api/v1/me", { headers: { host: "sessions.lab.example:443" } }),
      https,
    );
    expect(r?.status).toBe(404);
  });

  it("lets everything through when no sessions host is set", () => {
    const r = sessionsHostRefusal(
      new Request("http://127.0.0.1:3000/api/trpc/job.list", { headers: { host: "localhost:3000" } }),
      { app: origins.app, sessions: null },
    );
    expect(r).toBeNull();
  });
});
