import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { config } from "../proxy";

// Next copies the body of each request its proxy runs for (up to 10 MB) and holds it until the request
// ends: the proxy runs for pages read without a body, and never for the API.
const runs = (url: string, headers: Record<string, string> = {}) => unstable_doesMiddlewareMatch({ config, url, headers });

describe("where the proxy runs", () => {
  it("for pages and the app's files read without a body", () => {
    for (const path of ["/", "/jobs", "/login?next=%2Fbudgets", "/queue/h100", "/metrics", "/_next/static/chunks/a.js"])
      expect(runs(path), path).toBe(true);
  });

  it("never for the API, with a body or without", () => {
    for (const path of [
      "/api/agent/v1/heartbeat",
      "/api/auth/sign-in/email",
      "/api/trpc/job.list",
      "/api/v1/me",
      "/api/health",
    ]) {
      expect(runs(path), path).toBe(false);
      expect(runs(path, { "content-length": "9437184" }), path).toBe(false);
    }
  });

  it("never for a request that carries a body, whatever its path", () => {
    expect(runs("/login", { "content-length": "9437184" })).toBe(false);
    expect(runs("/jobs", { "transfer-encoding": "chunked" })).toBe(false);
  });
});
