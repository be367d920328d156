import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cgroupNotice, JobCgroups } from "../src/cgroup";
import { JobRunner } from "../src/runner";
import { runAssignment } from "./support/assignment";

// This host has cgroup v1, so no real cgroup v2 is touched here: a temporary folder stands in for the
// unified hierarchy (/sys/fs/cgroup). What the kernel would do itself — list every process of the job in
// cgroup.procs, end them all on a write to cgroup.kill — the tests do by hand, and say where.

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const runners: JobRunner[] = [];
const strays: number[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stopAll(500);
  for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "tranche-cgroup-"));
  dirs.push(d);
  return d;
};
/** A stand-in cgroup v2 mount: the root's cgroup.controllers says "unified hierarchy here". */
const fakeMount = () => {
  const root = tempDir();
  writeFileSync(join(root, "cgroup.controllers"), "cpu memory pids\n");
  return root;
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const until = async (fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};
const sleeper = () => {
  const p = spawn("sleep", ["300"], { stdio: "ignore" });
  procs.push(p);
  return p;
};

describe("JobCgroups (against a stand-in for the cgroup v2 mount)", () => {
  it("is unavailable where no unified hierarchy is mounted (cgroup v1, macOS): the runner keeps to process groups", () => {
    const cg = new JobCgroups("n1", tempDir());
    expect(cg.available).toBe(false);
    expect(cg.adopt("7", process.pid)).toBeNull();
  });

  it("an agent whose jobs get no cgroup says so once at start, unless the operator turned cgroups off", () => {
    const cg = new JobCgroups("n1", tempDir());
    expect(cgroupNotice(true, cg.available)).toMatch(/^jobs get no cgroup of their own .* can outlive its job/);
    expect(cgroupNotice(false, cg.available)).toBeNull();
    expect(cgroupNotice(true, new JobCgroups("n1", fakeMount()).available)).toBeNull();
  });

  it("makes tranche/<node>/<segment> and writes the job's first process into its cgroup.procs", () => {
    const root = fakeMount();
    const cg = new JobCgroups("n1", root);
    expect(cg.base).toBe(join(root, "tranche", "n1"));
    const dir = cg.adopt("7", 4242)!;
    expect(dir).toBe(join(root, "tranche", "n1", "7"));
    expect(readFileSync(join(dir, "cgroup.procs"), "utf8")).toBe("4242");
    expect(JobCgroups.pids(dir)).toEqual([4242]);
  });

  it("signals every process the cgroup lists, one by one, where there is no cgroup.kill", async () => {
    const cg = new JobCgroups("n1", fakeMount());
    const [a, b] = [sleeper(), sleeper()];
    const dir = cg.adopt("8", a.pid!)!;
    appendFileSync(join(dir, "cgroup.procs"), `\n${b.pid}\n`); // the kernel lists a forked child itself
    JobCgroups.signal(dir, "SIGTERM");
    await until(() => !alive(a.pid!) && !alive(b.pid!));
  });

  it("ends the whole cgroup with one write to cgroup.kill where the kernel has it", () => {
    const cg = new JobCgroups("n1", fakeMount());
    const a = sleeper();
    const dir = cg.adopt("9", a.pid!)!;
    writeFileSync(join(dir, "cgroup.kill"), "0");
    JobCgroups.signal(dir, "SIGKILL");
    expect(readFileSync(join(dir, "cgroup.kill"), "utf8")).toBe("1");
    // The write is the kill (the kernel's job): nothing was signalled one by one.
    expect(alive(a.pid!)).toBe(true);
  });

  it("removes an empty job cgroup and leaves a busy one", () => {
    const cg = new JobCgroups("n1", fakeMount());
    const busy = cg.adopt("10", 4242)!;
    JobCgroups.remove(busy); // a plain folder holding cgroup.procs: like a cgroup that still has processes
    expect(existsSync(busy)).toBe(true);
    rmSync(join(busy, "cgroup.procs"));
    JobCgroups.remove(busy);
    expect(existsSync(busy)).toBe(false);
  });
});

describe("the runner with per-job cgroups (stand-in mount)", () => {
  const assignment = (segmentId: string, command: string) => runAssignment(segmentId, command);

  it("ends a process that left the job's process group (setsid) through the job's cgroup when the job is stopped", async () => {
    const root = fakeMount();
    const dir = join(tempDir(), "n1");
    const r = new JobRunner({ dir, nodeName: "n1", log: () => {}, cgroups: new JobCgroups("n1", root) });
    runners.push(r);
    const escapedFile = join(dirs[dirs.length - 1]!, "escaped.pid");
    r.reconcile([assignment("51", `setsid sleep 300 & echo $! > ${escapedFile}; echo ready; sleep 300`)], []);
    await until(() => existsSync(escapedFile) && readFileSync(escapedFile, "utf8").trim() !== "");
    const escaped = Number(readFileSync(escapedFile, "utf8").trim());
    strays.push(escaped);
    const cgroup = join(root, "tranche", "n1", "51");
    expect(JobCgroups.pids(cgroup).length).toBe(1); // the job's wrapper, written by the runner at launch
    appendFileSync(join(cgroup, "cgroup.procs"), `\n${escaped}\n`); // the kernel lists the setsid'd child itself
    expect(alive(escaped)).toBe(true);
    r.reconcile([], [{ jobId: 51, segmentId: "51", reason: "PREEMPT", graceUntil: new Date(Date.now() + 500).toISOString() }]);
    await until(() => (r.tick(), r.reports()[0]?.status === "EXITED"), 8000);
    await until(() => !alive(escaped), 3000);
  }, 20_000);
});
