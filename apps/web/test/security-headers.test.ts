import { describe, expect, it } from "vitest";
import { getPathMatch } from "next/dist/shared/lib/router/utils/path-match";
import config from "../next.config";

describe("security headers", () => {
  it("are set on every path, pages and API alike, but a session's proxy (which sets its own)", async () => {
    const rules = await config.headers!();
    expect(rules).toHaveLength(1);
    const matches = getPathMatch(rules[0]!.source, {});
    for (const path of ["/", "/jobs/12", "/api/trpc/job.list", "/api/v1/jobs", "/api/v1/sessions/12/open", "/_next/static/a.js"])
      expect(matches(path), path).toBeTruthy();
    for (const path of ["/api/v1/sessions/12/proxy", "/api/v1/sessions/12/proxy/", "/api/v1/sessions/12/proxy/files/a"])
      expect(matches(path), path).toBe(false);
    expect(matches("/api/v1/sessions/12/proxyx")).toBeTruthy();
    const h = Object.fromEntries(rules[0]!.headers.map((x) => [x.key.toLowerCase(), x.value]));
    expect(h["x-frame-options"]).toBe("DENY");
    expect(h["x-content-type-options"]).toBe("nosniff");
    expect(h["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    const csp = h["content-security-policy"]!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'unsafe-inline'(;|$)/);
    expect(csp).not.toMatch(/\*|https?:/);
  });
});
