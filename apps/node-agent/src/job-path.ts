import { statSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";

/**
 * The PATH of a job that runs as another user than the agent: the agent's own, less the folders that
 * user cannot enter (a root agent's PATH often holds /root/.cargo/bin and the like). Through such a
 * folder /bin/sh answered "Permission denied" (exit 126 or 127) for a command that was simply not
 * found, which sent people looking for a permissions problem. Relative entries go too: they would
 * name folders under the job's own working folder, not the agent's.
 */
export function pathForOtherUser(path: string): string {
  const kept = path.split(":").filter((d) => d !== "" && isAbsolute(d) && othersMayEnter(d));
  return kept.length > 0 ? kept.join(":") : "/usr/local/bin:/usr/bin:/bin";
}

/** Every folder from `/` down to `dir` exists and lets other users pass (o+x). */
function othersMayEnter(dir: string): boolean {
  return closedToOthers(dir) === null;
}

/** The first folder from `dir` up to `/` that other users cannot pass through (o+x) or that is missing, or null. */
export function closedToOthers(dir: string): string | null {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      if ((statSync(d).mode & 0o001) === 0) return d;
    } catch {
      return d;
    }
    if (d === dirname(d)) return null;
  }
}
