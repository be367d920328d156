import { existsSync, readFileSync, rmSync } from "node:fs";
import { PID_FILE } from "./global-setup";

/** Stop the e2e stack (it stops `next start` and Postgres on SIGTERM) and wait until it is gone. */
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
  if (!pid || !alive()) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 20_000;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, "SIGKILL");
}
