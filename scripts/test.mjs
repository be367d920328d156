#!/usr/bin/env node
// `npm test`: the whole suite from a fresh clone — static checks (lint, format, types, dependency
// direction), unit and integration tests (vitest, real embedded Postgres), and end-to-end journeys
// (Playwright in a real Chromium). Ends with one line `N passed, N failed` summed over every runner;
// each static check counts as one. Plain Node: it installs what is missing before anything else.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Every process the suite starts inherits this mark (unless a test gives it an environment of its own), so
// what is still running once the suite is done can be found: the suite must leave no process behind.
const RUN_MARK = `${process.pid}-${Date.now()}`;
const env = {
  ...process.env,
  NEXT_TELEMETRY_DISABLED: "1",
  TURBO_TELEMETRY_DISABLED: "1",
  FORCE_COLOR: "0",
  TRANCHE_TEST_RUN: RUN_MARK,
};
const results = [];
let passed = 0;
let failed = 0;

function step(name, cmd, args, opts = {}) {
  const t = Date.now();
  console.log(`\n=== ${name}`);
  const r = spawnSync(cmd, args, { cwd: root, env: { ...env, ...opts.env }, stdio: "inherit" });
  const ok = r.status === 0;
  const secs = ((Date.now() - t) / 1000).toFixed(1);
  results.push(`${ok ? "ok  " : "FAIL"} ${name} (${secs} s)`);
  return ok;
}

function check(name, cmd, args) {
  if (step(name, cmd, args)) passed++;
  else failed++;
}

const results_dir = join(root, "test-results");
mkdirSync(results_dir, { recursive: true });

// 0. Install and generate when missing (a fresh clone has neither).
const installed = join(root, "node_modules", ".package-lock.json");
if (!existsSync(installed) || statSync(join(root, "package-lock.json")).mtimeMs > statSync(installed).mtimeMs) {
  if (!step("install dependencies (npm ci)", "npm", ["ci", "--no-audit", "--no-fund"])) finish();
}
if (!existsSync(join(root, "packages", "db", "src", "generated", "client.ts"))) {
  if (!step("generate the Prisma client", "npx", ["prisma", "generate"])) finish();
}

// 1. Static checks.
check("lint (eslint, incl. dependency direction and the pure-core bans)", "npx", ["eslint", ".", "--max-warnings", "0"]);
check("format (prettier --check)", "npx", ["prettier", "--check", ".", "--log-level", "warn"]);
check("typecheck (tsc --noEmit in every workspace and the root scripts)", "npm", ["run", "--silent", "typecheck"]);

// 2. Unit + integration (vitest, one JSON report for both projects).
const vitestJson = join(results_dir, "vitest.json");
rmSync(vitestJson, { force: true });
const vitestOk = step("unit and integration tests (vitest)", "npx", [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${vitestJson}`,
]);
count(vitestJson, vitestOk, (r) => ({
  passed: r.numPassedTests,
  failed: r.numFailedTests + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0),
  sound: r.success !== false && r.numTotalTests > 0,
}));

// 3. End to end (Playwright in a real Chromium against the built app).
const chromium = findChromium();
if (!chromium.ok) {
  console.error(`\n${chromium.message}`);
  results.push(`FAIL end-to-end: ${chromium.message}`);
  failed++;
} else if (step("build (turbo: next build)", "npx", ["turbo", "run", "build", "--output-logs=errors-only"])) {
  const e2eJson = join(results_dir, "e2e.json");
  rmSync(e2eJson, { force: true });
  const e2eOk = step("end-to-end journeys (playwright)", "npx", ["playwright", "test"], {
    env: { PLAYWRIGHT_CHROMIUM_PATH: chromium.path ?? "", PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson },
  });
  count(e2eJson, e2eOk, (r) => ({
    passed: r.stats.expected + (r.stats.flaky ?? 0),
    failed: r.stats.unexpected + (r.stats.skipped ?? 0),
    sound: (r.errors ?? []).length === 0 && r.stats.expected + r.stats.unexpected > 0,
  }));
} else {
  failed++;
}

finish();

/**
 * Add a runner's counts from its JSON report. A runner that failed without a failing test (a global setup
 * error, no test found, no report at all) still counts as one failure, so a broken run never reads green.
 */
function count(reportPath, exitedOk, read) {
  let r;
  try {
    r = existsSync(reportPath) ? read(JSON.parse(readFileSync(reportPath, "utf8"))) : null;
  } catch {
    r = null;
  }
  if (r) {
    passed += r.passed;
    failed += r.failed;
  }
  if ((!exitedOk || !r || !r.sound) && (!r || r.failed === 0)) failed++;
}

function findChromium() {
  const candidates = [
    process.env.PLAYWRIGHT_CHROMIUM_PATH,
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
  ].filter(Boolean);
  for (const c of candidates) if (existsSync(c)) return { ok: true, path: c };
  // Playwright's own browser, where `npx playwright install chromium` could download one.
  const r = spawnSync(
    process.execPath,
    ["-e", "const {chromium}=require('@playwright/test');process.stdout.write(chromium.executablePath())"],
    { cwd: root, encoding: "utf8" },
  );
  if (r.status === 0 && r.stdout && existsSync(r.stdout)) return { ok: true, path: "" };
  return {
    ok: false,
    message:
      "No Chromium for the end-to-end tests. Install one: on Debian/Ubuntu `sudo apt-get install -y chromium`; elsewhere `npx playwright install chromium`; or set PLAYWRIGHT_CHROMIUM_PATH to a Chromium binary.",
  };
}

/**
 * The processes the suite started that still run (by their TRANCHE_TEST_RUN mark), given up to 15 s to
 * finish stopping. Any left is listed, killed, and counted as one failure. Only where /proc can be read.
 */
function leftBehind() {
  if (!existsSync("/proc/self/environ")) return;
  const marked = () => {
    const found = [];
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
      try {
        if (!readFileSync(`/proc/${d}/environ`, "latin1").split("\0").includes(`TRANCHE_TEST_RUN=${RUN_MARK}`)) continue;
        const cmd = readFileSync(`/proc/${d}/cmdline`, "latin1").split("\0").join(" ").trim();
        if (cmd) found.push({ pid: Number(d), cmd });
      } catch {
        // gone, or not ours to read
      }
    }
    return found;
  };
  let left = marked();
  const deadline = Date.now() + 15_000;
  while (left.length > 0 && Date.now() < deadline) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500); // a half-second pause, no timer loop here
    left = marked();
  }
  if (left.length === 0) {
    results.push("ok   no process left behind");
    passed++;
    return;
  }
  console.error(`\n${left.length} process(es) the suite started still run:`);
  for (const p of left) {
    console.error(`  ${p.pid} ${p.cmd.slice(0, 200)}`);
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  results.push(`FAIL no process left behind: ${left.length} still ran (listed above; killed)`);
  failed++;
}

function finish() {
  leftBehind();
  console.log("\n=== summary");
  for (const r of results) console.log(r);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}
