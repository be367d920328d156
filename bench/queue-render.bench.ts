// Live queue with 10,000 pending jobs: time from navigation to the first rows on screen, in a real
// Chromium against the built app (issue 6: first render <= 1.5 s). A benchmark, not a test: it prints
// figures. Needs `npx turbo run build` first.
// Run: node --import tsx bench/queue-render.bench.ts [--runs 7]
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "@playwright/test";
import { repoRoot } from "@tranche/db/setup";
import { seedPendingJobs } from "../e2e/support/seed-load";
import { PASSWORD, USERS } from "../e2e/support/helpers";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1] || 7);
const root = repoRoot();
const stack = spawn(
  process.execPath,
  [
    "--import",
    "tsx",
    join(root, "e2e", "support", "stack.ts"),
    "--port",
    "3190",
    "--pg-port",
    "54389",
    "--data",
    ".data/bench-queue-postgres",
  ],
  {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const ready = await new Promise<{ url: string; databaseUrl: string }>((resolve, reject) => {
  stack.once("exit", (c) => reject(new Error(`stack exited (${c})`)));
  createInterface({ input: stack.stdout! }).on("line", (l) => l.startsWith("READY ") && resolve(JSON.parse(l.slice(6))));
});
try {
  await seedPendingJobs(ready.databaseUrl, "h100", 10_000);
  const executablePath =
    process.env.PLAYWRIGHT_CHROMIUM_PATH || (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
  });
  const page = await browser.newPage({ baseURL: ready.url, viewport: { width: 1440, height: 900 } });
  await page.goto("/login");
  await page.getByLabel("Email").fill(USERS.ada);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByTestId("who-name").waitFor();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await page.goto("/queue/h100", { waitUntil: "commit" });
    await page.getByTestId("pending-list").getByRole("row").first().waitFor({ state: "visible" });
    times.push(performance.now() - t0);
  }
  await browser.close();
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`queue /queue/h100 with 10,000 pending, first rows visible (ms): ${times.map((t) => t.toFixed(0)).join(", ")}`);
  console.log(
    `median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms, best ${sorted[0]!.toFixed(0)} ms (target <= 1500 ms)`,
  );
} finally {
  stack.kill("SIGTERM");
  await new Promise((r) => stack.once("exit", r));
}
