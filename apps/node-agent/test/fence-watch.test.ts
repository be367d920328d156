import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FENCED } from "@tranche/contracts";
import { AGENT_PID_FILE, FenceWatch, type FenceWatchSpec, type ProcessId } from "../src/fence-watch";
import { FENCED_MARK, JobRunner, procStart } from "../src/runner";
import { runAssignment } from "./support/assignment";
import { groupAlive as alive } from "./support/process-groups";

const ROOT = resolve(import.meta.dirname, "../../..");
const dirs: string[] = [];
const groups: number[] = [];
const others: ChildProcess[] = [];
afterEach(() => {
  for (const g of groups.splice(0))
    try {
      process.kill(-g, "SIGKILL");
    } catch {
      // gone
    }
  for (const p of others.splice(0)) p.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** A stand-in for an agent process (or its successor): something that runs until killed. */
function standIn(): ProcessId & { proc: ChildProcess } {
  const proc = spawn("sleep", ["60"], { stdio: "ignore" });
  others.push(proc);
  return { proc, pid: proc.pid!, start: procStart(proc.pid!)!.start };
}

/** Node folder `<d>/n1` with one job running that exits 0 on SIGTERM (so its exit status would say it finished). */
async function nodeWithJob(segmentId: string): Promise<{ dir: string; pgid: number; log: string[] }> {
  const d = mkdtempSync(join(tmpdir(), "tranche-fence-watch-"));
  dirs.push(d);
  const dir = join(d, "n1");
  const log: string[] = [];
  const r = new JobRunner({ dir, nodeName: "n1", log: (l) => log.push(l) });
  r.reconcile([runAssignment(segmentId, "trap 'echo checkpointed; exit 0' TERM; echo up; while :; do sleep 0.1; done")], []);
  const pgid = r.list()[0]!.pid!;
  groups.push(pgid);
  await until("the job's command to run", () => r.pendingLogs().chunks.length > 0, 5000);
  return { dir, pgid, log };
}

const contact = (dir: string, agoMs: number) =>
  writeFileSync(join(dir, "contact.json"), JSON.stringify({ at: Date.now() - agoMs, fence: { afterSec: 30, graceSec: 2 } }));

const specFor = (agent: ProcessId, dir: string): FenceWatchSpec => ({
  agent: { pid: agent.pid, start: agent.start },
  nodes: [{ name: "n1", dir, cgroupBase: null }],
});

describe("the fence watch (fence-watch.ts): jobs an agent left running, with no agent and no control plane", () => {
  it("its process waits while the agent runs; once the agent is gone and the last answer is older than the timeout it stops the jobs, marks them fenced and exits; the next agent reports them FENCED", async () => {
    const { dir, pgid, log } = await nodeWithJob("71");
    contact(dir, 31_000); // silent past the timeout: only the live agent holds the watch back
    const agent = standIn();
    const watch = spawn(
      process.execPath,
      ["--import", "tsx", join(ROOT, "apps/node-agent/src/fence-watch-main.ts"), JSON.stringify(specFor(agent, dir))],
      {
        cwd: ROOT,
        stdio: "ignore",
      },
    );
    others.push(watch);
    const exited = new Promise<number | null>((r) => watch.once("exit", (code) => r(code)));
    await new Promise((r) => setTimeout(r, 2500)); // two rounds and more: the agent fences itself, not the watch
    expect(alive(pgid)).toBe(true);
    expect(existsSync(join(dir, "jobs", "71", FENCED_MARK))).toBe(false);

    agent.proc.kill("SIGKILL");
    await until("the job to be stopped", () => !alive(pgid));
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, "jobs", "71", FENCED_MARK))).toBe(true);
    expect(readFileSync(join(dir, "fence-watch.log"), "utf8")).toMatch(
      /stopping process group \d+ .*job 71, segment 71, left running by its agent \(pid \d+\), which has stopped, and no answer from the control plane for \d+ s/,
    );

    // The job trapped SIGTERM and exited 0, yet its run is reported fenced (lost, requeued), not finished: by
    // the runner that saw it end (in this test the one that launched it) and by the next agent's.
    await until("the runner to see the exit", () => log.some((l) => l.includes("was stopped by the fence watch")));
    expect(log.join("\n")).toMatch(/job 71 \(segment 71\) was stopped by the fence watch while no agent ran/);
    const next = new JobRunner({ dir, nodeName: "n1", log: () => {} });
    expect(next.reports()).toMatchObject([{ segmentId: "71", status: "EXITED", exitCode: null, signal: FENCED }]);
  }, 20_000);

  it("with the agent gone, it waits for the heartbeat timeout counted from the last answer, then fences", async () => {
    const { dir, pgid } = await nodeWithJob("72");
    const agent = standIn();
    agent.proc.kill("SIGKILL");
    await until("the stand-in agent to end", () => procStart(agent.pid) === null || procStart(agent.pid)!.zombie);
    const w = new FenceWatch(specFor(agent, dir));
    contact(dir, 20_000); // 20 s of silence: 10 s to go
    expect(w.round()).toBe(false);
    expect(alive(pgid)).toBe(true);
    contact(dir, 30_500);
    expect(w.round()).toBe(true);
    await w.run();
    expect(alive(pgid)).toBe(false);
    expect(existsSync(join(dir, "jobs", "72", FENCED_MARK))).toBe(true);
  }, 15_000);

  it("fences the jobs of an agent paused (SIGSTOP) past the timeout, keeps watching, and lets it fence itself once it runs again", async () => {
    const { dir, pgid } = await nodeWithJob("74");
    const agent = standIn();
    const w = new FenceWatch(specFor(agent, dir));
    contact(dir, 31_000);
    expect(w.round()).toBe(false); // running: it fences itself
    expect(alive(pgid)).toBe(true);

    process.kill(agent.pid, "SIGSTOP");
    await until("the stand-in agent to be paused", () => procStart(agent.pid)!.stopped);
    contact(dir, 20_000);
    expect(w.round()).toBe(false); // paused, but not yet silent for the timeout
    expect(alive(pgid)).toBe(true);
    contact(dir, 30_500);
    expect(w.round()).toBe(false); // fences, and carries on: the agent may resume
    await until("the job to be stopped", () => !alive(pgid));
    expect(existsSync(join(dir, "jobs", "74", FENCED_MARK))).toBe(true);
    expect(readFileSync(join(dir, "fence-watch.log"), "utf8")).toMatch(/left running by its agent \(pid \d+\), which is paused/);

    process.kill(agent.pid, "SIGCONT");
    await until("the stand-in agent to run again", () => !procStart(agent.pid)!.stopped);
    expect(w.round()).toBe(false);
    agent.proc.kill("SIGKILL");
    await until("the stand-in agent to end", () => procStart(agent.pid) === null || procStart(agent.pid)!.zombie);
    expect(w.round()).toBe(true); // gone, and nothing left running
  }, 15_000);

  it("leaves the jobs to a new agent that took over the folder, and exits at once where no job runs", async () => {
    const { dir, pgid } = await nodeWithJob("73");
    contact(dir, 60_000);
    const old = standIn();
    old.proc.kill("SIGKILL");
    await until("the stand-in agent to end", () => procStart(old.pid) === null || procStart(old.pid)!.zombie);
    const successor = standIn();
    writeFileSync(join(dir, AGENT_PID_FILE), JSON.stringify({ pid: successor.pid, start: successor.start }));
    expect(new FenceWatch(specFor(old, dir)).round()).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(pgid)).toBe(true);
    expect(existsSync(join(dir, "jobs", "73", FENCED_MARK))).toBe(false);

    // Nothing running: nothing to guard (and nothing launches without an agent).
    process.kill(-pgid, "SIGKILL");
    await until("the job to end", () => !alive(pgid));
    rmSync(join(dir, AGENT_PID_FILE));
    expect(new FenceWatch(specFor(old, dir)).round()).toBe(true);
  }, 15_000);
});
