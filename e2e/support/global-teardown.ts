import { existsSync, readFileSync, rmSync } from "node:fs";
import { PID_FILE } from "./global-setup";
import { stopLeftoverGroups } from "./process-groups";

/**
 * Stop the e2e stack and wait until it is gone. On SIGTERM it stops its agents, then the worker and
 * `next start` as process groups, then Postgres; if it does not finish in time it is killed, and the
 * groups it recorded are ended here, so no process of the suite outlives it.
 */
export default async function globalTeardown(): Promise<void> {
  if (!existsSync(PID_FILE)) return;
  const pid = Number(readFileSync(PID_FILE, "utf8"));
  rmSync(PID_FILE, { force: true });
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (pid && alive()) {
    process.kill(pid, "SIGTERM");
    // Its own stop takes at most 20 s (agents) + 5 s (services) + the database's.
    const deadline = Date.now() + 45_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (alive()) process.kill(pid, "SIGKILL");
  }
  await stopLeftoverGroups();
}
