// The Tranche worker: `node --import tsx apps/worker/src/main.ts` with DATABASE_URL set.
// Runs as many replicas as you like: exactly one is the leader (lease in Postgres) and schedules.
//
// Options: --help (this text), --dry-run (check the environment, print what would run, exit 0 without
// connecting to the database). Anything else is refused.
//
// Environment:
//   DATABASE_URL               required
//   TRANCHE_WORKER_ID          this replica's name (default host-pid)
//   TRANCHE_CYCLE_INTERVAL_MS  timer between cycles when nothing wakes it (default 3000)
//   TRANCHE_LEASE_TTL_SEC      leader lease (default 8; a standby takes over within ttl + 1 s)
//   TRANCHE_POLICY             JSON policy overrides, e.g. {"heartbeatTimeout":10}
//   TRANCHE_REPAIR_HOOK        shell command run when a node becomes REPAIR (TRANCHE_NODE_NAME set)
//   TRANCHE_REPAIR_WEBHOOK     URL POSTed {node, nodeId, state} when a node becomes REPAIR
//   TRANCHE_REASON_WRITES_PER_CYCLE  pending reasons refreshed per cycle beyond new ones and the head of
//                              the queue (default 500; bounds a cycle's cost with 10,000 pending jobs)
//   TRANCHE_FORECAST_EVERY_MS  how often each cluster's start forecast is refreshed (default 60000; -1 = never)
//   TRANCHE_FORECAST_JOBS      jobs at the head of the order that get a forecast (default 500)
//   TRANCHE_STATEMENT_TIMEOUT_MS  PostgreSQL cancels any statement of the worker that runs longer (default 60000)
//   TRANCHE_MAX_CYCLE_MS       a cycle running longer stops the lease's renewal and the worker exits 1, for its
//                              supervisor (npm start, compose, systemd) to start a fresh one (default 300000)
//   TRANCHE_TEST_HANG_BEFORE_APPLY=1   (tests) its first cycle waits for ever between decide and apply
//   TRANCHE_TEST_CRASH_BEFORE_APPLY=1  (tests) SIGKILL itself between decide and apply of its first cycle
//   TRANCHE_TEST_CRASH_BEFORE_COMMIT=1 (tests) SIGKILL itself inside the apply transaction of its first cycle
//                              that starts jobs, after all its writes, before COMMIT
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { createPrismaClient } from "@tranche/db";
import { policyOverridesFromEnv } from "@tranche/domain/runtime";
import { defaultForecastConfig } from "./forecast";
import { WebhookSender } from "./webhook-sender";
import { Worker } from "./worker";

function fail(message: string): never {
  console.error(`tranche-worker: ${message}`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const unknown = argv.find((a) => a !== "--help" && a !== "--dry-run");
if (unknown) fail(`unknown option '${unknown}' (the worker takes --help and --dry-run; it is configured by environment)`);
if (argv.includes("--help")) {
  const header = readFileSync(new URL(import.meta.url), "utf8").split("\n");
  console.log(
    header
      .slice(
        0,
        header.findIndex((l) => !l.startsWith("//")),
      )
      .map((l) => l.slice(3))
      .join("\n"),
  );
  process.exit(0);
}
const url = process.env.DATABASE_URL;
if (!url) fail("DATABASE_URL is not set (postgresql://user:password@host:port/db).");
const intervalMs = Number(process.env.TRANCHE_CYCLE_INTERVAL_MS ?? 3000);
if (!Number.isFinite(intervalMs) || intervalMs < 50)
  fail(`TRANCHE_CYCLE_INTERVAL_MS must be a number of milliseconds >= 50, got '${process.env.TRANCHE_CYCLE_INTERVAL_MS}'.`);
const leaseTtlSec = Number(process.env.TRANCHE_LEASE_TTL_SEC ?? 8);
if (!Number.isFinite(leaseTtlSec) || leaseTtlSec < 1)
  fail(`TRANCHE_LEASE_TTL_SEC must be >= 1, got '${process.env.TRANCHE_LEASE_TTL_SEC}'.`);
let policy;
try {
  policy = policyOverridesFromEnv(process.env.TRANCHE_POLICY);
} catch (e) {
  fail((e as Error).message);
}

const reasonWriteCap = Number(process.env.TRANCHE_REASON_WRITES_PER_CYCLE ?? 500);
if (!Number.isInteger(reasonWriteCap) || reasonWriteCap < 0)
  fail(`TRANCHE_REASON_WRITES_PER_CYCLE must be a whole number, got '${process.env.TRANCHE_REASON_WRITES_PER_CYCLE}'.`);
const newReasonWriteCap = Number(process.env.TRANCHE_NEW_REASON_WRITES_PER_CYCLE ?? 2500);
if (!Number.isInteger(newReasonWriteCap) || newReasonWriteCap < 0)
  fail(`TRANCHE_NEW_REASON_WRITES_PER_CYCLE must be a whole number, got '${process.env.TRANCHE_NEW_REASON_WRITES_PER_CYCLE}'.`);
const forecastEveryMs = Number(process.env.TRANCHE_FORECAST_EVERY_MS ?? 60_000);
if (!Number.isInteger(forecastEveryMs) || forecastEveryMs < -1)
  fail(
    `TRANCHE_FORECAST_EVERY_MS must be a whole number of milliseconds (or -1 for never), got '${process.env.TRANCHE_FORECAST_EVERY_MS}'.`,
  );
const forecastJobs = Number(process.env.TRANCHE_FORECAST_JOBS ?? 500);
if (!Number.isInteger(forecastJobs) || forecastJobs < 1)
  fail(`TRANCHE_FORECAST_JOBS must be a whole number >= 1, got '${process.env.TRANCHE_FORECAST_JOBS}'.`);
const statementTimeoutMs = Number(process.env.TRANCHE_STATEMENT_TIMEOUT_MS ?? 60_000);
if (!Number.isInteger(statementTimeoutMs) || statementTimeoutMs < 100)
  fail(
    `TRANCHE_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds >= 100, got '${process.env.TRANCHE_STATEMENT_TIMEOUT_MS}'.`,
  );
const maxCycleMs = Number(process.env.TRANCHE_MAX_CYCLE_MS ?? 300_000);
if (!Number.isInteger(maxCycleMs) || maxCycleMs < 1000)
  fail(`TRANCHE_MAX_CYCLE_MS must be a whole number of milliseconds >= 1000, got '${process.env.TRANCHE_MAX_CYCLE_MS}'.`);
const workerId = process.env.TRANCHE_WORKER_ID || `${hostname()}-${process.pid}`;
if (argv.includes("--dry-run")) {
  console.log(`tranche-worker: dry run: would run worker ${workerId} (cycle every ${intervalMs} ms, lease ${leaseTtlSec} s)`);
  process.exit(0);
}
const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
const prisma = createPrismaClient(url, { max: 4, statementTimeoutMs });
const crashBeforeApply = process.env.TRANCHE_TEST_CRASH_BEFORE_APPLY === "1";
const hangBeforeApply = process.env.TRANCHE_TEST_HANG_BEFORE_APPLY === "1";
const crashBeforeCommit = process.env.TRANCHE_TEST_CRASH_BEFORE_COMMIT === "1";

const worker = new Worker(prisma, {
  databaseUrl: url,
  workerId,
  intervalMs,
  leaseTtlSec,
  policy,
  reasonWriteCap,
  newReasonWriteCap,
  forecast: { ...defaultForecastConfig, everyMs: forecastEveryMs, maxJobs: forecastJobs },
  repairHook: process.env.TRANCHE_REPAIR_HOOK || null,
  repairWebhook: process.env.TRANCHE_REPAIR_WEBHOOK || null,
  log,
  beforeCommit: crashBeforeCommit
    ? () => {
        log("TRANCHE_TEST_CRASH_BEFORE_COMMIT: killing myself inside the apply transaction, before COMMIT");
        process.kill(process.pid, "SIGKILL");
      }
    : undefined,
  beforeApply: crashBeforeApply
    ? () => {
        log("TRANCHE_TEST_CRASH_BEFORE_APPLY: killing myself between decide and apply");
        process.kill(process.pid, "SIGKILL");
      }
    : hangBeforeApply
      ? () => {
          log("TRANCHE_TEST_HANG_BEFORE_APPLY: waiting for ever between decide and apply");
          return new Promise<void>(() => {});
        }
      : undefined,
  statementTimeoutMs,
  maxCycleMs,
  // Nothing inside the process can end the stuck await; a fresh process has fresh connections. The
  // lease is already left to run out, and the database rolls back whatever the cycle had begun.
  onStuckCycle: () => {
    log("exiting so that a fresh worker takes over");
    process.exit(1);
  },
});

// Users' notification webhooks, on their own timer (never inside a cycle).
const webhooks = new WebhookSender(prisma, log);

/** A stop's goodbyes to the database (the lease, the pools) end by then. */
const STOP_DEADLINE_MS = 2000;
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(`stopping (${signal})`);
  // Each goodbye below waits on the database, which may never answer (a server gone silent): the
  // worker stops anyway by then, as its supervisor expects. Nothing is lost: the lease runs out, a
  // cycle's open transaction rolls back, and a webhook round's claimed notifications are sent later.
  setTimeout(() => {
    log("stopped without waiting longer for the database, which does not answer");
    process.exit(0);
  }, STOP_DEADLINE_MS).unref();
  await worker.stop();
  await Promise.allSettled([webhooks.stop(), prisma.$disconnect()]);
  process.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => void shutdown(sig));
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
// Under a supervisor (npm start sets TRANCHE_EXIT_WITH_PARENT=1): stop when it is gone.
if (process.env.TRANCHE_EXIT_WITH_PARENT === "1") {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && void shutdown("parent process exited"), 1000).unref();
}

log(`worker ${workerId} starting (cycle every ${intervalMs} ms, lease ${leaseTtlSec} s)`);
await worker.start();
webhooks.start();
await worker.run();
