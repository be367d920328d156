import { defineConfig } from "vitest/config";

// One vitest run covers every workspace: `unit` tests are pure and fast; `integration` tests
// (`*.integration.test.ts`) talk to a real Postgres and real processes, so they run one file at a time.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["{apps,packages,bench,scripts}/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/*.integration.test.ts", "apps/web/.next/**"],
          // The property tests replay hundreds of cycles: seconds on a quiet machine, several times that
          // on a busy one. A limit, not a timing: no test asserts how fast anything runs.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["{apps,packages,scripts}/**/*.integration.test.ts"],
          exclude: ["**/node_modules/**"],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
          globalSetup: ["./scripts/test-db-setup.ts"],
        },
      },
    ],
  },
});
