import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** The Unix identity a job process runs as; null = the agent's own. */
export interface JobIds {
  uid: number;
  gid: number;
}

/**
 * Who a job runs as (issue 15, job isolation):
 * - `range`: each Tranche user gets a uid of their own from a range (no system account is needed:
 *   spawn's uid/gid options are enough); jobs of different users cannot read each other's folders.
 *   With a shared checkpoint root (`claimDir`, see UID_CLAIM_DIR) a user's uid is claimed there, so
 *   it is the same on every node that mounts the root and never another user's; `mapFile` (mode 600)
 *   then mirrors the claims of this host's users. Without one, `mapFile` alone keeps the mapping, per
 *   host, so a user keeps their uid across restarts.
 * - `user`: every job runs as one existing unprivileged account (isolated from the agent, not from
 *   each other).
 * - `agent`: as the agent itself — refused for an agent running as root unless `--allow-root-jobs`.
 */
export type JobIdentity =
  | { kind: "agent" }
  | { kind: "user"; name: string; ids: JobIds }
  | { kind: "range"; from: number; to: number; mapFile: string; claimDir?: string };

/**
 * The folder on the shared checkpoint root that holds the uid claims (mode 700, the agents' own user,
 * root in production): `uid-<N>` names the user who holds uid N, `user-<user>` the uid a user holds.
 * Each is created once, atomically (link(2) of a finished file, which NFS makes exclusive too), and
 * never changed, so every node that mounts the root agrees on them.
 */
export const UID_CLAIM_DIR = ".tranche-uids";

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

type RangeIdentity = Extract<JobIdentity, { kind: "range" }>;

/** A failure already worded for the operator (the rest get the claim folder named around them). */
class ClaimError extends Error {}

function readMap(mapFile: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(mapFile, "utf8")) as Record<string, number>;
  } catch {
    return {}; // first job on this host
  }
}

function writeMap(mapFile: string, map: Record<string, number>): void {
  writeFileSync(`${mapFile}.tmp`, JSON.stringify(map), { mode: 0o600 });
  renameSync(`${mapFile}.tmp`, mapFile);
}

/** The ids a job of Tranche user `userKey` runs as (null: the agent's own). */
export function jobIdsFor(identity: JobIdentity, userKey: string): JobIds | null {
  if (identity.kind === "agent") return null;
  if (identity.kind === "user") return identity.ids;
  const map = readMap(identity.mapFile);
  let uid = map[userKey];
  if (identity.claimDir !== undefined) {
    uid = sharedUid(identity, userKey, uid);
    if (mirror(map, userKey, uid)) writeMap(identity.mapFile, map);
    return { uid, gid: uid };
  }
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
    writeMap(identity.mapFile, map);
  }
  return { uid, gid: uid };
}

/** Make the local map say `userKey` holds `uid` and nobody else does; true when it changed. */
function mirror(map: Record<string, number>, userKey: string, uid: number): boolean {
  let changed = map[userKey] !== uid;
  for (const [k, u] of Object.entries(map))
    if (k !== userKey && u === uid) {
      delete map[k];
      changed = true;
    }
  map[userKey] = uid;
  return changed;
}

/**
 * Before the first job, with a shared checkpoint root: the claim folder is made (mode 700) if missing
 * and must be a folder of this agent's user that no one else may write, and writable (else the agent
 * must not start: every launch would fail). Then this host's old job-uids.json is checked against the
 * shared claims, which win: a user the root knows keeps the uid claimed there; one it does not know
 * keeps their local uid if no one holds it there, else gets a free one; each change is logged and the
 * local file rewritten to match. Throws a sentence for the operator.
 */
export function prepareUidClaims(identity: JobIdentity, log: (line: string) => void): void {
  if (identity.kind !== "range" || identity.claimDir === undefined) return;
  const dir = identity.claimDir;
  const where = `the uid claims folder ${dir} on the shared checkpoint root`;
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST")
      throw new Error(`cannot create ${where}: ${(e as Error).message}`, { cause: e });
  }
  const st = lstatSync(dir);
  const me = process.getuid?.();
  if (!st.isDirectory()) throw new Error(`${where} is not a folder: remove it so the agent can make one`);
  if (me !== undefined && st.uid !== me)
    throw new Error(
      `${where} belongs to uid ${st.uid}, not to this agent's (${me}): others could forge claims; remove it or give it to the agent's user`,
    );
  if ((st.mode & 0o022) !== 0)
    throw new Error(
      `${where} is writable by others (mode ${(st.mode & 0o777).toString(8)}): check its files, then 'chmod 700 ${dir}'`,
    );
  chmodSync(dir, 0o700); // the claims are no job's business
  try {
    const probe = join(dir, tmpName());
    writeFileSync(probe, "", { mode: 0o600, flag: "wx" });
    rmSync(probe, { force: true });
  } catch (e) {
    throw new Error(
      `cannot write to ${where} (${(e as Error).message}): with NFS, export it without root squashing to the agents`,
      { cause: e },
    );
  }
  const map = readMap(identity.mapFile);
  const entries = Object.entries(map);
  if (!entries.length) return;
  const next: Record<string, number> = {};
  for (const [key, local] of entries.sort(([, a], [, b]) => a - b))
    try {
      const uid = sharedUid(identity, key, local);
      if (uid !== local)
        log(
          `job-uids.json: user ${key} had uid ${local} on this host; the shared claims in ${dir} give them ${uid} (the shared claims win)`,
        );
      mirror(next, key, uid);
    } catch (e) {
      log(`job-uids.json: dropped user ${key} (uid ${local}): ${(e as Error).message}`);
    }
  writeMap(identity.mapFile, next);
}

/** A name no other process on any node picks for its temporary file. */
function tmpName(): string {
  return `.tmp-${hostname()}-${process.pid}-${randomBytes(6).toString("hex")}`;
}

function userFile(dir: string, userKey: string): string {
  const safe = /^[A-Za-z0-9_-]{1,200}$/.test(userKey);
  return join(dir, safe ? `user-${userKey}` : `user~${createHash("sha256").update(userKey).digest("hex")}`);
}

const uidFile = (dir: string, uid: number) => join(dir, `uid-${uid}`);

/** A claim's text, or null when there is none. */
function readClaim(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/**
 * Create `file` holding `text` unless it exists: a finished temporary file is linked there, so no one
 * ever reads it half written and of two nodes racing exactly one succeeds. Callers read the claim back
 * rather than trust the result (over NFS a lost reply can make a successful link look failed).
 */
function createOnce(dir: string, file: string, text: string): void {
  const tmp = join(dir, tmpName());
  writeFileSync(tmp, `${text}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * The uid `userKey` holds in the shared claims, claiming one (`preferred` first, if free) when they
 * name none. Never answers a uid whose claim names another user. Throws a sentence naming the folder.
 */
function sharedUid(identity: RangeIdentity, userKey: string, preferred: number | undefined): number {
  const dir = identity.claimDir!;
  const range = `--job-uid-range ${identity.from}-${identity.to}`;
  try {
    const held = readClaim(userFile(dir, userKey));
    if (held !== null) return confirmed(identity, userKey, held);
    const taken = new Set<number>();
    for (const name of readdirSync(dir)) {
      const m = /^uid-(\d+)$/.exec(name);
      if (m) taken.add(Number(m[1]));
    }
    const first = preferred !== undefined && preferred >= identity.from && preferred <= identity.to ? preferred : null;
    for (let i = first === null ? identity.from : identity.from - 1; i <= identity.to; i++) {
      const uid = i < identity.from ? first! : i;
      if (taken.has(uid) || (i >= identity.from && uid === first)) continue;
      createOnce(dir, uidFile(dir, uid), userKey);
      if (readClaim(uidFile(dir, uid)) !== userKey) continue; // another node took it first
      // uid is this user's; publish it, unless another node published one for them meanwhile.
      createOnce(dir, userFile(dir, userKey), String(uid));
      const won = readClaim(userFile(dir, userKey));
      if (won === String(uid)) return uid;
      if (won !== null) {
        rmSync(uidFile(dir, uid), { force: true }); // nobody uses it: the user file names another
        return confirmed(identity, userKey, won);
      }
      throw new Error(`the claim of user ${userKey} vanished`);
    }
    throw new ClaimError(`${range} is used up: every uid there belongs to a user (claims in ${dir})`);
  } catch (e) {
    if (e instanceof ClaimError) throw e;
    throw new ClaimError(
      `cannot claim a uid for user ${userKey} in ${dir} (the uid claims on the shared checkpoint root): ${(e as Error).message}`,
      { cause: e },
    );
  }
}

/** `held` (the text of the user's file) as a uid, after checking that its claim names this user. */
function confirmed(identity: RangeIdentity, userKey: string, held: string): number {
  const dir = identity.claimDir!;
  const uid = /^\d+$/.test(held) ? Number(held) : NaN;
  if (Number.isNaN(uid)) throw new ClaimError(`user ${userKey}: their claim in ${dir} holds '${held.slice(0, 40)}', not a uid`);
  if (uid < identity.from || uid > identity.to)
    throw new ClaimError(
      `user ${userKey} holds uid ${uid} in ${dir}, outside this agent's --job-uid-range ${identity.from}-${identity.to}: give every node the same range`,
    );
  let owner = readClaim(uidFile(dir, uid));
  if (owner === null) {
    // Only a hand-removed file gets here: claim the uid back, unless someone took it meanwhile.
    createOnce(dir, uidFile(dir, uid), userKey);
    owner = readClaim(uidFile(dir, uid));
  }
  if (owner !== userKey)
    throw new ClaimError(
      `user ${userKey}: the claims in ${dir} disagree (uid ${uid} names another user); an operator must fix them`,
    );
  return uid;
}
