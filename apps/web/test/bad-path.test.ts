import { describe, expect, it } from "vitest";
import { badPathEncoding } from "../server/bad-path";

// The front gate (apps/web/server/front-gate.ts) answers a path Next could not decode before any
// route: Next's own route matcher throws on it and answers a plain-text 500.
describe("a URL path with malformed percent-encoding", () => {
  it("is 400 in the API's error shape under /api/, naming the segment", async () => {
    const r = badPathEncoding("/api/v1/budgets/%E0%A4%A/members")!;
    expect(r.status).toBe(400);
    const message = "The URL path segment '%E0%A4%A' is not valid percent-encoding: each % starts %XX, and the bytes form UTF-8";
    expect(await r.json()).toEqual({ error: { code: "BAD_INPUT", message, issues: [{ path: "path", message }] } });
    for (const p of ["/api/v1/nodes/%", "/api/v1/jobs/%zz", "/api/v1/nodes/%ED%A0%80", "/api/trpc/%C0"])
      expect(badPathEncoding(p)?.status, p).toBe(400);
  });

  it("is 400 in plain words for a page", async () => {
    const r = badPathEncoding("/queue/%E0%A4%A")!;
    expect(r.status).toBe(400);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await r.text()).toMatch(/^The URL path segment '%E0%A4%A' is not valid percent-encoding/);
  });

  it("lets every path that decodes through, %00 and encoded slashes included (the routes judge those)", () => {
    for (const p of ["/", "/api/v1/jobs/12", "/api/v1/nodes/%00", "/api/v1/budgets/lab%2Fvision/members", "/queue/h%C3%A9"])
      expect(badPathEncoding(p), p).toBeNull();
  });
});
