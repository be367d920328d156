import { defineConfig } from "vitest/config";

// One vitest run covers every workspace: `unit` tests are pure and fast; `integration` tests
// (`*.integration.test.ts`) talk to a real Postgres and real processes.
//
// Two files at a time in each project, even on a two-core machine: vitest's default there is one worker,
// and an integration file spends most of its time waiting on other processes (a worker's lease, an agent's
// heartbeat, a server's start), so two of them overlap well (the integration files took 242 s two at a time
// against about 360 s one at a time). Files can share the run because each one owns what it touches: its own
// database cloned from the template (@tranche/db/testing), its own ports (listen(0) or a probed free one), its
// own temporary folders, its own PostgreSQL where it stops one. A new integration file must keep to that.
// The unit files run first, as their own group, so a CPU-heavy property test never starves a test that
// waits on a timeout.
export default defineConfig({
  test: {
    projects: [
      {
        // The web's tsconfig keeps JSX for Next ("preserve"); a unit test that renders a component to
        // text (react-dom/server) needs it compiled.
        oxc: { jsx: { runtime: "automatic" } },
        test: {
          name: "unit",
          include: ["{apps,packages,bench,scripts,e2e}/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/*.integration.test.ts", "apps/web/.next/**"],
          // The property tests replay hundreds of cycles: seconds on a quiet machine, several times that
          // on a busy one. A limit, not a timing: no test asserts how fast anything runs.
          testTimeout: 30_000,
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: "integration",
          include: ["{apps,packages,scripts}/**/*.integration.test.ts"],
          exclude: ["**/node_modules/**"],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 120_000,
          globalSetup: ["./scripts/test-db-setup.ts"],
        },
      },
    ],
  },
});
