import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

/** The Unix identity a job process runs as; null = the agent's own. */
export interface JobIds {
  uid: number;
  gid: number;
}

/**
 * Who a job runs as (issue 15, job isolation):
 * - `range`: each Tranche user gets a uid of its own from a range (no system account is needed:
 *   spawn's uid/gid options are enough). The mapping is kept in a file (mode 600) so a user keeps
 *   their uid across restarts; jobs of different users cannot read each other's folders.
 * - `user`: every job runs as one existing unprivileged account (isolated from the agent, not from
 *   each other).
 * - `agent`: as the agent itself — refused for an agent running as root unless `--allow-root-jobs`.
 */
export type JobIdentity =
  { kind: "agent" } | { kind: "user"; name: string; ids: JobIds } | { kind: "range"; from: number; to: number; mapFile: string };

/** Parse `--job-uid-range 20000-29999`; an error names the option and the value. */
export function parseUidRange(value: string): { from: number; to: number } {
  const m = /^(\d+)-(\d+)$/.exec(value.trim());
  const from = m ? Number(m[1]) : NaN;
  const to = m ? Number(m[2]) : NaN;
  if (!m || from < 1000 || to > 2 ** 31 - 2 || from > to)
    throw new Error(`--job-uid-range must be FROM-TO with 1000 <= FROM <= TO (e.g. 20000-29999), got '${value}'`);
  return { from, to };
}

/** uid and gid of an existing account (getent, so directory services count too). */
export function lookupUser(name: string): JobIds {
  let line = "";
  try {
    line = execFileSync("getent", ["passwd", name], { encoding: "utf8" }).trim();
  } catch {
    if (existsSync("/etc/passwd"))
      line =
        readFileSync("/etc/passwd", "utf8")
          .split("\n")
          .find((l) => l.split(":")[0] === name) ?? "";
  }
  const [, , uid, gid] = line.split(":");
  if (!line || uid === undefined || gid === undefined) throw new Error(`--job-user ${name}: no such user on this host`);
  if (Number(uid) === 0) throw new Error(`--job-user ${name} is root (uid 0): give an unprivileged account`);
  return { uid: Number(uid), gid: Number(gid) };
}

/** The ids a job of Tranche user `userKey` runs as (null: the agent's own). */
export function jobIdsFor(identity: JobIdentity, userKey: string): JobIds | null {
  if (identity.kind === "agent") return null;
  if (identity.kind === "user") return identity.ids;
  let map: Record<string, number> = {};
  try {
    map = JSON.parse(readFileSync(identity.mapFile, "utf8")) as Record<string, number>;
  } catch {
    // first job on this host
  }
  let uid = map[userKey];
  if (uid === undefined) {
    const used = new Set(Object.values(map));
    for (let u = identity.from; u <= identity.to; u++)
      if (!used.has(u)) {
        uid = u;
        break;
      }
    if (uid === undefined)
      throw new Error(`--job-uid-range ${identity.from}-${identity.to} is used up: every uid there belongs to a user`);
    map[userKey] = uid;
    writeFileSync(`${identity.mapFile}.tmp`, JSON.stringify(map), { mode: 0o600 });
    renameSync(`${identity.mapFile}.tmp`, identity.mapFile);
  }
  return { uid, gid: uid };
}
