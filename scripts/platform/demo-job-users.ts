import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** The uids the demo's jobs run as when `npm start` runs as root: one per Tranche user, as on real hosts. */
export const DEMO_JOB_UIDS = "20000-29999";

/**
 * Who the demo's fake-GPU jobs run as. Not root: the demo signs people in with a published password, so a
 * job running as root would make every demo login root on this host (it could read the node credentials
 * and the database password). As root, the agents therefore run each user's jobs as a uid of their own
 * (--job-uid-range), which needs the agents' folder reachable by other users; where a folder above it is
 * closed to them (a checkout under /root), the jobs can only run as root, and the start says so.
 */
export function demoJobUsers(agentsDir: string, isRoot = process.getuid?.() === 0): { args: string[]; warning: string | null } {
  if (!isRoot) return { args: [], warning: null };
  const closed = closedAbove(agentsDir);
  if (closed === null) return { args: ["--job-uid-range", DEMO_JOB_UIDS], warning: null };
  return {
    args: ["--allow-root-jobs"],
    warning: `demo jobs run as root: other users cannot enter ${closed}, so they cannot run as uids of their own; clone Tranche into a folder others may enter (e.g. under /srv or /opt) to isolate them`,
  };
}

/** The first existing folder above `dir` that other users cannot pass through, or null. */
function closedAbove(dir: string): string | null {
  for (let d = dirname(resolve(dir)); ; d = dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) return d;
    if (d === dirname(d)) return null;
  }
}
