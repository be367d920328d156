import { existsSync } from "node:fs";
import { chromium, defineConfig } from "@playwright/test";

/**
 * Playwright journeys against the BUILT web app (run `npx turbo run build` first). globalSetup starts
 * a fresh embedded Postgres (.data/e2e-postgres, port 54349 or the next free one), seeds the demo
 * world and serves `next start` on 127.0.0.1:3100; globalTeardown stops both.
 */
function chromiumPath(): string | undefined {
  const fromEnv = process.env.PLAYWRIGHT_CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`PLAYWRIGHT_CHROMIUM_PATH=${fromEnv} does not exist.`);
    return fromEnv;
  }
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  let bundled: string;
  try {
    bundled = chromium.executablePath();
  } catch {
    bundled = "";
  }
  if (bundled && existsSync(bundled)) return undefined; // Playwright's own browser
  throw new Error(
    "No Chromium found for the e2e tests. Install one of: Debian/Ubuntu `apt-get install -y chromium` (gives /usr/bin/chromium), " +
      "or Playwright's browser with `npx playwright install chromium` (needs internet), or set PLAYWRIGHT_CHROMIUM_PATH to a Chromium binary.",
  );
}

const PORT = Number(process.env.E2E_PORT ?? 3100);

export default defineConfig({
  testDir: "./e2e",
  testMatch: "**/*.spec.ts",
  // The screenshots are pictures for people to look at, not a check (they assert nothing a journey does
  // not): `npm run screenshots` takes them; the suite leaves out their 80 s.
  testIgnore: process.env.E2E_SCREENSHOTS === "1" ? [] : ["**/screenshots.spec.ts"],
  globalSetup: "./e2e/support/global-setup.ts",
  globalTeardown: "./e2e/support/global-teardown.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/e2e.json" }]],
  outputDir: "test-results/e2e-artifacts",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1440, height: 900 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromiumPath(),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
  },
});
