import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "@tranche/db";
import { repoRoot } from "@tranche/db/setup";

// A run killed with SIGKILL leaves its services behind (its Postgres is handled by postmaster.pid).
// The run file records the supervisor's and services' pids so the next start can stop them.
const runFile = () => join(process.env.TRANCHE_RUN_DIR ?? join(repoRoot(), ".data", "run"), "platform.json");

export function writeRunFile(services: Record<string, number>): void {
  mkdirSync(dirname(runFile()), { recursive: true });
  writeFileSync(runFile(), JSON.stringify({ supervisor: process.pid, services }, null, 2));
}

export function removeRunFile(): void {
  rmSync(runFile(), { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function isOurs(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(repoRoot());
  } catch {
    return false;
  }
}

export async function stopLeftoverPlatform(log: (l: string) => void): Promise<void> {
  if (!existsSync(runFile())) return;
  let recorded: { supervisor: number; services: Record<string, number> };
  try {
    recorded = JSON.parse(readFileSync(runFile(), "utf8"));
  } catch {
    removeRunFile();
    return;
  }
  // A supervisor still alive is a start that runs, not one that was killed: a second `npm start` in the
  // same checkout (another terminal, another PORT or DATABASE_URL) stopped the whole running platform.
  if (recorded.supervisor > 0 && recorded.supervisor !== process.pid && alive(recorded.supervisor) && isOurs(recorded.supervisor))
    throw new ConfigError(alreadyRunning(recorded.supervisor));
  const pids = [recorded.supervisor, ...Object.values(recorded.services)].filter(
    (p) => p > 0 && p !== process.pid && alive(p) && isOurs(p),
  );
  if (pids.length > 0) {
    log(`stopping ${pids.length} process(es) left running by an earlier start`);
    // The supervisor first: it stops its own services and Postgres cleanly.
    for (const pid of pids) process.kill(pid, "SIGTERM");
    const deadline = Date.now() + 15_000;
    while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
  }
  removeRunFile();
}

export const alreadyRunning = (pid: number): string =>
  `Tranche is already running from this checkout (npm start, pid ${pid}); stop it first (Ctrl-C in its terminal, or kill -INT ${pid}), or start another one from another clone.`;
