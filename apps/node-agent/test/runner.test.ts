import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LIMITS } from "@tranche/contracts";
import { JobRunner, LOG_BYTES_PER_BEAT, LOG_BYTES_PER_STREAM } from "../src/runner";
import { runAssignment } from "./support/assignment";

const dirs: string[] = [];
const runners: JobRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.stopAll(1000);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function makeRunner(dir?: string): JobRunner {
  const d = dir ?? mkdtempSync(join(tmpdir(), "tranche-runner-"));
  if (!dir) dirs.push(d);
  const r = new JobRunner({ dir: join(d, "n1"), nodeName: "n1", log: () => {} });
  runners.push(r);
  return r;
}

const assignment = (segmentId: string, command: string, gpuIndexes = [0]) =>
  runAssignment(segmentId, command, { env: { GREETING: "hi" }, gpuIndexes });

const until = async (fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe("JobRunner", () => {
  it("runs a job as a real process with its GPUs and identity in the environment, and reports its exit and output", async () => {
    const r = makeRunner();
    r.reconcile(
      [assignment("11", 'echo "$GREETING $TRANCHE_JOB_ID $CUDA_VISIBLE_DEVICES $TRANCHE_NODE_NAME"; exit 4', [2, 3])],
      [],
    );
    await until(() => r.reports()[0]?.status === "EXITED");
    expect(r.reports()[0]).toMatchObject({ jobId: 11, segmentId: "11", status: "EXITED", exitCode: 4, signal: null });
    const logs = r.pendingLogs();
    expect(logs.chunks).toEqual([{ jobId: 11, segmentId: "11", stream: "stdout", text: "hi 11 2,3 n1\n" }]);
    logs.commit();
    expect(r.pendingLogs().chunks).toEqual([]);
    r.forget(["11"]);
    expect(r.list()).toEqual([]);
  });

  it("a job that ended while its agent could not see it (paused) is reported by its own exit and end time, not fenced", async () => {
    const r = makeRunner();
    r.reconcile([assignment("31", "sleep 0.2")], []);
    await until(() => r.reports()[0]?.status === "RUNNING");
    // The agent "paused": its event loop handles nothing (not the exit) while the job ends.
    const resumedAt = Date.now() + 1500;
    while (Date.now() < resumedAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    expect(r.reports()[0]?.status).toBe("RUNNING");
    expect(r.fence(1000)).toBe(0);
    await until(() => r.reports()[0]?.status === "EXITED");
    const report = r.reports()[0]!;
    expect(report).toMatchObject({ exitCode: 0, signal: null });
    expect(Date.parse(report.endedAt!)).toBeLessThan(resumedAt - 500);
  });

  it("a restarted runner adopts a job still running instead of starting it again", async () => {
    const d = mkdtempSync(join(tmpdir(), "tranche-runner-"));
    dirs.push(d);
    const first = makeRunner(d);
    first.reconcile([assignment("21", "sleep 3")], []);
    await until(() => first.reports()[0]?.status === "RUNNING");
    const pid = first.reports()[0]!.pid;
    const second = makeRunner(d); // same folder: what a restarted agent sees
    second.reconcile([assignment("21", "sleep 3")], []);
    expect(second.reports()).toEqual([expect.objectContaining({ segmentId: "21", status: "RUNNING", pid })]);
    // The adopted job's end is still noticed, with its exit code from the wrapper's exit file.
    await until(() => (second.tick(), second.reports()[0]?.status === "EXITED"), 8000);
    expect(second.reports()[0]).toMatchObject({ exitCode: 0 });
  }, 15_000);

  it("stop sends SIGTERM to the job's process group, then SIGKILL after the grace", async () => {
    const r = makeRunner();
    r.reconcile([assignment("31", "trap '' TERM; echo ready; sleep 30 & wait; sleep 30")], []);
    await until(() => r.pendingLogs().chunks.some((c) => c.text.includes("ready")));
    const t0 = Date.now();
    r.reconcile([], [{ jobId: 31, segmentId: "31", reason: "PREEMPT", graceUntil: new Date(Date.now() + 800).toISOString() }]);
    await until(() => (r.tick(), r.reports()[0]?.status === "EXITED"), 6000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(700);
    expect(r.reports()[0]).toMatchObject({ exitCode: null, signal: "SIGKILL" });
  }, 10_000);

  it("a stop's grace is counted on the control plane's clock: a host 4 minutes ahead of it still gives the whole grace", async () => {
    const r = makeRunner();
    r.reconcile([assignment("35", "trap '' TERM; echo ready; sleep 30 & wait; sleep 30")], []);
    await until(() => r.pendingLogs().chunks.some((c) => c.text.includes("ready")));
    const serverNow = Date.now() - 240_000; // this host's clock runs 4 minutes ahead of the control plane's
    const before = Date.now();
    r.reconcile(
      [],
      [{ jobId: 35, segmentId: "35", reason: "PREEMPT", graceUntil: new Date(serverNow + 60_000).toISOString() }],
      serverNow,
    );
    r.tick();
    const job = r.list().find((j) => j.segmentId === "35")!;
    expect(job.status).toBe("RUNNING");
    expect(job.killAt! - before).toBeGreaterThanOrEqual(59_000);
    expect(job.killAt! - before).toBeLessThanOrEqual(60_000 + (Date.now() - before));
  }, 10_000);

  it("a job waits until the GPUs it was given are free (its preempted victims left) before it launches", async () => {
    const r = makeRunner();
    r.reconcile([assignment("41", "sleep 0.6", [0])], []);
    await until(() => r.reports()[0]?.status === "RUNNING");
    r.reconcile([assignment("42", "true", [0])], []);
    expect(r.list().find((j) => j.segmentId === "42")!.status).toBe("WAITING");
    await until(() => (r.tick(), r.list().find((j) => j.segmentId === "42")!.status !== "WAITING"), 5000);
    expect(r.list().find((j) => j.segmentId === "41")!.status).toBe("EXITED");
  });

  it("a job stopped before it launched is reported gone without ever running", () => {
    const r = makeRunner();
    r.reconcile([], [{ jobId: 51, segmentId: "51", reason: "CANCEL", graceUntil: new Date().toISOString() }]);
    expect(r.reports()).toEqual([
      expect.objectContaining({ segmentId: "51", status: "EXITED", signal: "NEVER_STARTED", pid: null }),
    ]);
  });

  it("a job that cannot be started (an env over the OS limit: E2BIG) ends LAUNCH_FAILED with the error; the runner and its other jobs live on", async () => {
    const r = makeRunner();
    r.reconcile([assignment("61", "sleep 3", [0])], []);
    await until(() => r.reports()[0]?.status === "RUNNING");
    const big = { ...assignment("62", "echo never", [1]), env: { HUGE: "x".repeat(300_000) } };
    expect(() => r.reconcile([assignment("61", "sleep 3", [0]), big], [])).not.toThrow();
    const failed = r.reports().find((j) => j.segmentId === "62");
    expect(failed).toMatchObject({ status: "EXITED", signal: "LAUNCH_FAILED", pid: null, exitCode: null });
    expect(failed!.launchError).toMatch(/E2BIG/);
    expect(r.reports().find((j) => j.segmentId === "61")).toMatchObject({ status: "RUNNING" });
    r.reconcile([assignment("63", "echo fine", [2])], []);
    await until(() => (r.tick(), r.reports().find((j) => j.segmentId === "63")?.status === "EXITED"));
    expect(r.reports().find((j) => j.segmentId === "63")).toMatchObject({ exitCode: 0 });
  }, 10_000);

  it("a restarted runner launches a job it stored as WAITING only once the control plane assigns it again", async () => {
    const d = mkdtempSync(join(tmpdir(), "tranche-runner-"));
    dirs.push(d);
    const first = makeRunner(d);
    first.reconcile([assignment("71", "sleep 2", [0])], []);
    await until(() => first.reports()[0]?.status === "RUNNING");
    const marker = join(d, "ran-72");
    const marker2 = join(d, "ran-73");
    first.reconcile(
      [assignment("71", "sleep 2", [0]), assignment("72", `touch ${marker}`, [0]), assignment("73", `touch ${marker2}`, [0])],
      [],
    );
    expect(first.list().filter((j) => j.status === "WAITING")).toHaveLength(2);
    await first.stopAll(500);
    const second = makeRunner(d); // restarted: 72 and 73 are WAITING in state.json, their GPU is free now
    await new Promise((res) => setTimeout(res, 300));
    second.tick();
    expect(
      second
        .list()
        .filter((j) => j.status === "WAITING")
        .map((j) => j.segmentId)
        .sort(),
    ).toEqual(["72", "73"]);
    // The first answer assigns 73 only (72 was cancelled meanwhile): 72 is dropped, 73 starts.
    second.reconcile([assignment("73", `touch ${marker2}`, [0])], []);
    await until(() => (second.tick(), existsSync(marker2)));
    await new Promise((res) => setTimeout(res, 300));
    expect(existsSync(marker)).toBe(false);
    expect(second.list().map((j) => j.segmentId)).not.toContain("72");
  }, 10_000);
});

describe("JobRunner log uploads", () => {
  it("never puts more than its per-beat cap in one upload, however many jobs print, and carries the rest over whole and in order", async () => {
    const r = makeRunner();
    const jobs = 80;
    // Each job prints ~100 KB on each stream: 80 x 2 x 32 KiB per beat would be 5 MiB, over the control plane's 4 MiB.
    r.reconcile(
      Array.from({ length: jobs }, (_, i) => assignment(String(100 + i), `seq ${i} 20000; seq 30000 50000 >&2`, [i])),
      [],
    );
    await until(() => r.reports().filter((x) => x.status === "EXITED").length === jobs, 60_000);
    const got = new Map<string, string>();
    let beats = 0;
    for (;;) {
      const logs = r.pendingLogs();
      if (logs.chunks.length === 0) break;
      const bytes = logs.chunks.reduce((n, c) => n + Buffer.byteLength(c.text, "utf8"), 0);
      expect(bytes).toBeLessThanOrEqual(LOG_BYTES_PER_BEAT);
      expect(LOG_BYTES_PER_BEAT).toBeLessThan(LIMITS.logBytesPerBeat);
      for (const c of logs.chunks) got.set(`${c.segmentId}/${c.stream}`, (got.get(`${c.segmentId}/${c.stream}`) ?? "") + c.text);
      logs.commit();
      beats++;
    }
    expect(beats).toBeGreaterThan(3);
    const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => `${from + k}\n`).join("");
    for (let i = 0; i < jobs; i++) {
      expect(got.get(`${100 + i}/stdout`)).toBe(seq(i, 20000));
      expect(got.get(`${100 + i}/stderr`)).toBe(seq(30000, 50000));
    }
  }, 120_000);

  it("sends a stream's backlog in several 32 KiB chunks per upload, up to its share, and says when some is left", async () => {
    const r = makeRunner();
    r.reconcile([assignment("5", "true", [0])], []);
    await until(() => r.reports()[0]?.status === "EXITED");
    const printed = "0123456789abcdef\n".repeat(Math.ceil((LOG_BYTES_PER_STREAM * 1.5) / 17));
    writeFileSync(join(dirs[dirs.length - 1]!, "n1", "jobs", "5", "stdout.log"), printed);
    const first = r.pendingLogs();
    const sent = first.chunks.map((c) => c.text).join("");
    expect(first.chunks.length).toBeGreaterThan(1);
    for (const c of first.chunks) expect(Buffer.byteLength(c.text)).toBeLessThanOrEqual(32 * 1024);
    expect(sent.length).toBeGreaterThan(LOG_BYTES_PER_STREAM - 32 * 1024);
    expect(sent.length).toBeLessThanOrEqual(LOG_BYTES_PER_STREAM);
    expect(first.backlog).toBe(true);
    expect(first.drained.has("5")).toBe(false);
    first.commit();
    const second = r.pendingLogs();
    expect(sent + second.chunks.map((c) => c.text).join("")).toBe(printed);
    expect(second.backlog).toBe(false);
    expect(second.drained.has("5")).toBe(true);
  });

  it("never splits a UTF-8 character: a chunk ends before one its 32 KiB limit or the file's end cuts, and waits for the rest", async () => {
    const r = makeRunner();
    r.reconcile([assignment("6", "sleep 30", [0])], []);
    await until(() => r.reports()[0]?.status === "RUNNING");
    const log = join(dirs[dirs.length - 1]!, "n1", "jobs", "6", "stdout.log");
    const smile = Buffer.from("😀"); // 4 bytes
    const sent: string[] = [];
    const upload = () => {
      const logs = r.pendingLogs();
      sent.push(...logs.chunks.map((c) => c.text));
      logs.commit();
      return logs.chunks.length;
    };
    // The 32 KiB limit falls inside the emoji; the file ends halfway into another one.
    writeFileSync(log, Buffer.concat([Buffer.from("a".repeat(32 * 1024 - 2)), smile, Buffer.from("b"), smile.subarray(0, 2)]));
    upload();
    expect(sent).toEqual(["a".repeat(32 * 1024 - 2), "😀b"]);
    expect(upload()).toBe(0); // half a character: nothing yet
    appendFileSync(log, smile.subarray(2));
    upload();
    expect(sent.join("")).toBe(`${"a".repeat(32 * 1024 - 2)}😀b😀`);
    expect(sent.join("")).not.toContain("\uFFFD");
  });

  it("an ended job's output cut inside a character is still sent, so its log drains", async () => {
    const r = makeRunner();
    r.reconcile([assignment("8", "true", [0])], []);
    await until(() => r.reports()[0]?.status === "EXITED");
    writeFileSync(join(dirs[dirs.length - 1]!, "n1", "jobs", "8", "stdout.log"), Buffer.from("😀").subarray(0, 3));
    const logs = r.pendingLogs();
    expect(logs.chunks.map((c) => c.text)).toEqual(["\uFFFD"]);
    expect(logs.drained.has("8")).toBe(true);
  });

  it("starts the next upload with the stream the cap stopped, so busy jobs do not starve the others", () => {
    const r = makeRunner();
    r.reconcile(
      ["1", "2", "3"].map((id, i) => assignment(id, "true", [i])),
      [],
    );
    return until(() => r.reports().filter((x) => x.status === "EXITED").length === 3).then(() => {
      // Nothing printed: write the logs as the jobs would have.
      const dir = (id: string) => join(dirs[dirs.length - 1]!, "n1", "jobs", id);
      for (const id of ["1", "2", "3"]) writeFileSync(join(dir(id), "stdout.log"), `${id}`.repeat(1000));
      const first = r.pendingLogs(2500);
      expect(first.chunks.map((c) => c.segmentId)).toEqual(["1", "2"]);
      first.commit();
      for (const id of ["1", "2"]) appendFileSync(join(dir(id), "stdout.log"), "more");
      const second = r.pendingLogs(1500);
      expect(second.chunks.map((c) => c.segmentId)).toEqual(["3", "1", "2"]);
    });
  });
});
