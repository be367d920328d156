import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { JobRunner } from "../src/runner";
import { runAssignment } from "./support/assignment";
import { groupAlive as alive } from "./support/process-groups";

const dirs: string[] = [];
const groups: number[] = [];
afterEach(() => {
  for (const g of groups.splice(0))
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // gone
    }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "tranche-strays-"));
  dirs.push(d);
  return d;
};

const assignment = (segmentId: string, command: string) =>
  runAssignment(segmentId, command, { gpuIndexes: [Number(segmentId) % 8] });

/** A runner in `<d>/n1` with these jobs running (their process groups, for cleanup and checks). */
async function launched(d: string, jobs: [string, string][], log: string[] = []): Promise<{ r: JobRunner; pgids: number[] }> {
  const r = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: (l) => log.push(l) });
  r.reconcile(
    jobs.map(([seg, cmd]) => assignment(seg, cmd)),
    [],
  );
  const pgids = r.list().map((j) => j.pid!);
  groups.push(...pgids);
  // Until each command runs (not the wrapper alone): its line is in the log.
  const end = Date.now() + 5000;
  while (r.pendingLogs().chunks.length < jobs.length && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  return { r, pgids };
}

describe("job processes unknown to the agent (strays.ts)", () => {
  it("a fresh agent whose state folder was wiped stops the jobs its predecessor left running there (SIGKILL for one ignoring SIGTERM), and nothing else", async () => {
    const d = tempDir();
    const { pgids } = await launched(d, [
      ["41", "echo up; sleep 60"],
      ["42", "trap '' TERM; echo up; sleep 60"],
    ]);
    // Another agent on this host with the same node name but another state folder: its job is not ours.
    const other = tempDir();
    const decoy = spawn("/bin/sh", ["-c", "sleep 60"], {
      detached: true,
      stdio: "ignore",
      env: {
        PATH: process.env.PATH,
        TRANCHE_NODE_NAME: "n1",
        TRANCHE_SEGMENT_ID: "43",
        TRANCHE_JOB_DIR: join(other, "n1", "jobs", "43", "work"),
      },
    });
    decoy.unref();
    groups.push(decoy.pid!);
    expect(pgids.every(alive)).toBe(true);

    rmSync(join(d, "n1"), { recursive: true, force: true }); // the state folder is lost; the jobs run on
    const log: string[] = [];
    const fresh = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: (l) => log.push(l) });
    const started = Date.now();
    expect(await fresh.stopStrays(1000)).toBe(2);
    expect(pgids.some(alive)).toBe(false);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(log).toHaveLength(2); // one line per process group
    expect(log[0]).toMatch(/^stopping process group \d+ \(pids [\d,]+\): job 4[12], segment 4[12], .* unknown to this agent/);
    expect(alive(decoy.pid!)).toBe(true);
    expect(fresh.list()).toEqual([]); // nothing to report about them: their records are gone
  }, 15_000);

  it.skipIf(process.getuid?.() !== 0)(
    "finds them when they run as another uid (--job-uid-range, a root agent)",
    async () => {
      const d = tempDir();
      const r = new JobRunner({
        dir: join(d, "n1"),
        nodeName: "n1",
        log: () => {},
        jobIds: () => ({ uid: 20_001, gid: 20_001 }),
      });
      r.reconcile([assignment("61", "echo up; sleep 60")], []);
      const pgid = r.list()[0]!.pid!;
      groups.push(pgid);
      const end = Date.now() + 5000;
      while (r.pendingLogs().chunks.length === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      rmSync(join(d, "n1"), { recursive: true, force: true });
      const fresh = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: () => {} });
      expect(await fresh.stopStrays(1000)).toBe(1);
      expect(alive(pgid)).toBe(false);
    },
    15_000,
  );

  it("a restarted agent that kept its state adopts its running job and stops nothing", async () => {
    const d = tempDir();
    const { pgids } = await launched(d, [["51", "echo up; sleep 60"]]);
    const log: string[] = [];
    const restarted = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: (l) => log.push(l) });
    expect(await restarted.stopStrays(1000)).toBe(0);
    expect(alive(pgids[0]!)).toBe(true);
    expect(restarted.reports()).toEqual([expect.objectContaining({ segmentId: "51", status: "RUNNING", pid: pgids[0] })]);
    expect(log.join("\n")).toMatch(/adopted job 51/);
  }, 15_000);
});
