import { execFile } from "node:child_process";
import type * as Fs from "node:fs";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { jobIdsFor, parseUidRange, prepareUidClaims, UID_CLAIM_DIR, type JobIdentity } from "../src/job-identity";

// A host whose view of the shared folder lags (NFS caches lookups): the next read of a file named here
// finds nothing, as if another host had not created it yet.
const lagging = vi.hoisted(() => new Set<string>());
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const readFileSync = ((path: string, ...rest: unknown[]) => {
    if (lagging.delete(String(path))) throw Object.assign(new Error(`ENOENT: ${String(path)}`), { code: "ENOENT" });
    return (fs.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, readFileSync, default: { ...fs, readFileSync } };
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "tranche-ids-"));
  dirs.push(d);
  return d;
}

/** Two hosts (each its own state folder) sharing one checkpoint root, its claims folder prepared. */
function twoHosts(from = 20000, to = 20009) {
  const d = tmp();
  const root = join(d, "ckpt");
  for (const f of [root, join(d, "host1"), join(d, "host2")]) mkdirSync(f);
  const claimDir = join(root, UID_CLAIM_DIR);
  const host = (n: number): JobIdentity => ({ kind: "range", from, to, mapFile: join(d, `host${n}`, "job-uids.json"), claimDir });
  const lines: string[] = [];
  prepareUidClaims(host(1), (l) => lines.push(l));
  return { d, root, claimDir, host1: host(1), host2: host(2), lines };
}
const uid = (identity: JobIdentity, user: string) => jobIdsFor(identity, user)!.uid;

describe("job identities", () => {
  it("parses a uid range and refuses a bad one, naming the option", () => {
    expect(parseUidRange("20000-29999")).toEqual({ from: 20000, to: 29999 });
    for (const bad of ["0-10", "30000-20000", "20000", "a-b", "20000-"])
      expect(() => parseUidRange(bad)).toThrow(
        `--job-uid-range must be FROM-TO with 1000 <= FROM <= TO (e.g. 20000-29999), got '${bad}'`,
      );
  });

  it("gives each Tranche user a uid of their own from the range, kept across restarts in a mode-600 file, until the range is used up", () => {
    const d = tmp();
    const range: JobIdentity = { kind: "range", from: 20000, to: 20001, mapFile: join(d, "job-uids.json") };
    const ada = jobIdsFor(range, "user-ada");
    const bob = jobIdsFor(range, "user-bob");
    expect(ada).toEqual({ uid: 20000, gid: 20000 });
    expect(bob).toEqual({ uid: 20001, gid: 20001 });
    expect(jobIdsFor({ ...range }, "user-ada")).toEqual(ada); // read back from the file
    expect(statSync(join(d, "job-uids.json")).mode & 0o777).toBe(0o600);
    expect(() => jobIdsFor(range, "user-cy")).toThrow("--job-uid-range 20000-20001 is used up");
  });

  it("runs jobs as the agent itself or as one named account when told so", () => {
    expect(jobIdsFor({ kind: "agent" }, "u")).toBeNull();
    expect(jobIdsFor({ kind: "user", name: "nobody", ids: { uid: 65534, gid: 65534 } }, "u")).toEqual({ uid: 65534, gid: 65534 });
  });

  it("with a shared checkpoint root, gives a user the same uid on every host and two users never the same, whichever host asks first", () => {
    const { claimDir, host1, host2 } = twoHosts();
    expect(statSync(claimDir).mode & 0o777).toBe(0o700);
    // The audit's case: ada's first job lands on host 1, bob's on host 2.
    const ada = uid(host1, "ada");
    const bob = uid(host2, "bob");
    expect(bob).not.toBe(ada);
    expect(uid(host2, "ada")).toBe(ada);
    expect(uid(host1, "bob")).toBe(bob);
    // A user whose first job is on host 2 is known on host 1 too.
    const cy = uid(host2, "cy");
    expect(uid(host1, "cy")).toBe(cy);
    expect(new Set([ada, bob, cy]).size).toBe(3);
    // The claims are on the root (only the agent's user may enter); each host mirrors its own users.
    expect(readFileSync(join(claimDir, `uid-${ada}`), "utf8").trim()).toBe("ada");
    expect(readFileSync(join(claimDir, "user-ada"), "utf8").trim()).toBe(String(ada));
    expect(JSON.parse(readFileSync(host2.kind === "range" ? host2.mapFile : "", "utf8"))).toEqual({ ada, bob, cy });
    // A user key that is no safe file name still gets a claim of its own.
    const odd = uid(host1, "../we/ird user");
    expect(uid(host2, "../we/ird user")).toBe(odd);
    expect(new Set([ada, bob, cy, odd]).size).toBe(4);
    expect(readdirSync(claimDir).filter((f) => f.startsWith(".tmp-"))).toEqual([]);
  });

  it("never gives one uid to two users when two hosts claim at the same time", async () => {
    const { d, claimDir, host1 } = twoHosts(20000, 20199);
    const users = Array.from({ length: 60 }, (_, i) => `u${i}`);
    // Three processes (hosts) claim the same 60 users at once, each in another order.
    const orders = [users, [...users].reverse(), [...users.slice(30), ...users.slice(0, 30)]];
    const repo = resolve(import.meta.dirname, "../../..");
    const script = join(import.meta.dirname, "support", "claim-uids.ts");
    const startAt = Date.now() + 3000; // once every process is up
    const running = Promise.all(
      orders.map((order, i) => {
        mkdirSync(join(d, `p${i}`));
        return new Promise<Record<string, number>>((ok, fail) =>
          execFile(
            process.execPath,
            ["--import", "tsx", script],
            {
              cwd: repo,
              env: { ...process.env, CLAIM_UIDS: JSON.stringify({ state: join(d, `p${i}`), claimDir, startAt, users: order }) },
            },
            (e, out) => (e ? fail(e) : ok(JSON.parse(out) as Record<string, number>)),
          ),
        );
      }),
    );
    // And this process, at the same time, in a random order.
    const here: Record<string, number> = {};
    while (Date.now() < startAt);
    for (const u of [...users].sort(() => Math.random() - 0.5)) here[u] = uid(host1, u);
    const results = await running;
    for (const r of [...results, here]) expect(r).toEqual(results[0]);
    expect(new Set(Object.values(here)).size).toBe(users.length);
    // The folder agrees: each user's claim names their uid, and each uid's claim names that user only.
    for (const u of users) expect(readFileSync(join(claimDir, `uid-${here[u]}`), "utf8").trim()).toBe(u);
    const owners = readdirSync(claimDir)
      .filter((f) => f.startsWith("uid-"))
      .map((f) => readFileSync(join(claimDir, f), "utf8").trim());
    expect(owners.length).toBe(new Set(owners).size);
  }, 60_000);

  it("gives back a uid it claimed for a user whose claim another host published meanwhile, and uses theirs", () => {
    const { claimDir, host1, host2 } = twoHosts();
    const ada = uid(host1, "ada");
    lagging.add(join(claimDir, "user-ada")); // host 2 does not see host 1's claim yet
    expect(uid(host2, "ada")).toBe(ada);
    expect(lagging.size).toBe(0);
    expect(readdirSync(claimDir).sort()).toEqual([`uid-${ada}`, "user-ada"]);
    expect(uid(host2, "bob")).toBe(ada + 1); // the uid given back is free again
  });

  it("does not use an old per-host mapping that conflicts with the shared claims, and says so at start", () => {
    const { claimDir, host1, host2 } = twoHosts();
    const ada = uid(host1, "ada"); // 20000 on the root
    // Host 2 ran before the root was shared: bob got 20000 there, and dee 20005.
    const map2 = host2.kind === "range" ? host2.mapFile : "";
    writeFileSync(map2, JSON.stringify({ bob: ada, dee: 20005 }), { mode: 0o600 });
    const lines: string[] = [];
    prepareUidClaims(host2, (l) => lines.push(l));
    const bob = uid(host2, "bob");
    expect(bob).not.toBe(ada);
    expect(uid(host1, "bob")).toBe(bob);
    expect(lines).toEqual([
      `job-uids.json: user bob had uid ${ada} on this host; the shared claims in ${claimDir} give them ${bob} (the shared claims win)`,
    ]);
    // dee's local uid was free on the root: she keeps it, on every host.
    expect(uid(host1, "dee")).toBe(20005);
    expect(JSON.parse(readFileSync(map2, "utf8"))).toEqual({ bob, dee: 20005 });
    // Even without the start-time check, a launch never takes a conflicting local entry.
    writeFileSync(map2, JSON.stringify({ eve: ada }), { mode: 0o600 });
    expect(uid(host2, "eve")).not.toBe(ada);
    expect(uid(host2, "ada")).toBe(ada);
    expect(JSON.parse(readFileSync(map2, "utf8"))).toEqual({ ada, eve: uid(host1, "eve") });
  });

  it("fails a launch with a sentence when the claims cannot be made, and refuses a claims folder others could write", () => {
    const { root, claimDir, host1, host2 } = twoHosts(20000, 20001);
    uid(host1, "ada");
    uid(host2, "bob");
    expect(() => uid(host2, "cy")).toThrow(
      `--job-uid-range 20000-20001 is used up: every uid there belongs to a user (claims in ${claimDir})`,
    );
    // A host configured with another range does not take the root's uid for a user outside it.
    const other: JobIdentity = { ...host1, from: 20001, to: 20009 } as JobIdentity;
    expect(() => uid(other, "ada")).toThrow(
      `user ada holds uid 20000 in ${claimDir}, outside this agent's --job-uid-range 20001-20009`,
    );
    // A claim that names another user is never used.
    writeFileSync(join(claimDir, "user-mallory"), "20000\n");
    expect(() => uid(host1, "mallory")).toThrow("the claims in");
    // A root whose claims folder is gone (an unmounted share) is not started over: the launch fails.
    const gone: JobIdentity = { ...host1, claimDir: join(root, "missing") } as JobIdentity;
    expect(() => uid(gone, "ada")).toThrow(
      `cannot claim a uid for user ada in ${join(root, "missing")} (the uid claims on the shared checkpoint root): ENOENT`,
    );
    chmodSync(claimDir, 0o733);
    expect(() => prepareUidClaims(host1, () => {})).toThrow(
      `is writable by others (mode 733): check its files, then 'chmod 700 ${claimDir}'`,
    );
    rmSync(claimDir, { recursive: true });
    writeFileSync(claimDir, "");
    expect(() => prepareUidClaims(host1, () => {})).toThrow("is not a folder");
    expect(existsSync(claimDir)).toBe(true);
  });
});
