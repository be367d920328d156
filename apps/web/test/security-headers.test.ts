import { describe, expect, it } from "vitest";
import config from "../next.config";

describe("security headers", () => {
  it("are set on every path, pages and API alike", async () => {
    const rules = await config.headers!();
    const all = rules.filter((r) => r.source === "/:path*");
    expect(all).toHaveLength(1);
    const h = Object.fromEntries(all[0]!.headers.map((x) => [x.key.toLowerCase(), x.value]));
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
