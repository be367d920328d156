import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The pids (process-group leaders) of what the e2e stack started, for the teardown if the stack is killed. */
export const CHILDREN_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".data", "e2e-stack.children");

/** Does any process of this group remain? */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

async function waitGone(pgids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let left = pgids.filter(groupAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = left.filter(groupAlive);
  }
  return left;
}

/**
 * Stop process groups and wait until none of their processes is left: SIGTERM, then SIGKILL for whatever
 * is still there after `graceMs`. Resolves only when every group is empty (or 5 s after the SIGKILL).
 */
export async function stopGroups(children: readonly { pid?: number | undefined }[], graceMs: number): Promise<void> {
  const pgids = children.map((c) => c.pid).filter((p): p is number => !!p);
  for (const g of pgids) signalGroup(g, "SIGTERM");
  const left = await waitGone(pgids, graceMs);
  for (const g of left) signalGroup(g, "SIGKILL");
  await waitGone(left, 5_000);
}

/** The teardown's last resort: end the groups a killed stack left behind. */
export async function stopLeftoverGroups(): Promise<void> {
  if (!existsSync(CHILDREN_FILE)) return;
  const pids = readFileSync(CHILDREN_FILE, "utf8")
    .split("\n")
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  rmSync(CHILDREN_FILE, { force: true });
  await stopGroups(
    pids.map((pid) => ({ pid })),
    5_000,
  );
}
