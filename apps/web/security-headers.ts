/**
 * Headers on every response. Next's App Router streams its page data in inline <script> tags without
 * a nonce unless every page renders dynamically per request, so scripts are 'self' plus inline; what
 * the policy buys is no foreign scripts, no plugins, no framing, no foreign form or fetch targets.
 * Inline styles are allowed because components and charts set style attributes. `next dev` also
 * needs eval for its fast refresh.
 */
export function securityHeaders(dev = process.env.NODE_ENV === "development"): { key: string; value: string }[] {
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
