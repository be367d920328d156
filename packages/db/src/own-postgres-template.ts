// A test's own PostgreSQL (testing.ts) starts from a copy of one data folder that the run made once
// (initdb, migrate, stop) instead of its own initdb and migrations: seconds of CPU each time on a
// 2-core machine, where copying the folder takes a fraction of one. The integration setup names the
// folder (TRANCHE_TEST_OWN_TEMPLATE) and removes it when the run ends; the first test that needs it
// makes it, and test files running beside it wait for that one.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";

/** The run's template folder, or null where there is none (outside the integration setup). */
export function ownTemplateDir(): string | null {
  return process.env.TRANCHE_TEST_OWN_TEMPLATE || null;
}

/**
 * Makes the template with `make(dir)` unless it is there. One process makes it (a lock folder decides);
 * the others wait until it appears, or make it themselves if its maker gave up.
 */
export async function ensureOwnTemplate(dir: string, make: (dir: string) => Promise<void>): Promise<void> {
  const lock = `${dir}.lock`;
  const building = `${dir}.building`;
  const deadline = Date.now() + 300_000;
  while (!existsSync(dir)) {
    if (takeLock(lock)) {
      try {
        if (existsSync(dir)) return;
        rmSync(building, { recursive: true, force: true });
        await make(building);
        // The password first: a folder that is there is whole, its password file beside it.
        renameSync(`${building}.password`, `${dir}.password`);
        renameSync(building, dir);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
      return;
    }
    if (Date.now() > deadline) throw new Error(`the test PostgreSQL template ${dir} did not appear within 5 minutes`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

/**
 * Copies the template into `dataDir` with its password beside it. `cp -a` keeps the owner: as root the
 * server runs as `postgres`, and refuses a data folder that is not its own.
 */
export function copyOwnTemplate(dir: string, dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
  const r = spawnSync("cp", ["-a", dir, dataDir], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`copying the test PostgreSQL template failed: ${r.stderr || r.error}`);
  copyFileSync(`${dir}.password`, `${dataDir}.password`);
  chmodSync(`${dataDir}.password`, 0o600);
}

/** Removes the template and what its making may have left (the setup's teardown). */
export function removeOwnTemplate(dir: string): void {
  for (const p of [dir, `${dir}.password`, `${dir}.lock`, `${dir}.building`, `${dir}.building.password`])
    rmSync(p, { recursive: true, force: true });
}
