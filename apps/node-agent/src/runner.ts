import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  chownSync,
  closeSync,
  constants as fsConstants,
  fstatSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { constants as osConstants, hostname } from "node:os";
import { join, resolve } from "node:path";
import {
  AGENT_SHUTDOWN,
  FENCED,
  LAUNCH_ERROR_MAX,
  LAUNCH_FAILED,
  LIMITS,
  UNTRACKED,
  type JobReport,
  type LogChunk,
  type RunAssignment,
  type StopOrder,
} from "@tranche/contracts";
import { JobCgroups } from "./cgroup";
import { pathForOtherUser } from "./job-path";
import type { JobIds } from "./job-identity";
import { listenerUids, listensAlone } from "./port-listener";
import { pickPort, sessionLaunch } from "./session";
import { stopStrays } from "./strays";

/**
 * Runs job processes for one node and survives its own restarts.
 *
 * Each job runs as `/bin/sh -c WRAPPER` in its own process group (detached), with stdout and stderr
 * going straight to files in the job's folder (no pipe to the agent: an agent restart cannot break
 * them). The wrapper runs the command in the background, survives SIGTERM itself, waits, and writes the
 * command's exit status to an `exit` file — so a restarted agent can still tell how an adopted job
 * ended. Stopping sends SIGTERM to the whole process group, then SIGKILL at the grace deadline.
 *
 * `state.json` (written atomically after every change) lists the jobs with their pid and the pid's
 * start time (from /proc, so a recycled pid is never mistaken for the job). On start the agent adopts
 * the live ones and reports the dead ones: it neither kills nor duplicates running jobs. Jobs that
 * were still WAITING (for their GPUs) launch only once the control plane lists them again: a job
 * cancelled while the agent was away never starts.
 *
 * One job never takes the agent down: a launch that throws (E2BIG for an oversized env, a folder
 * that cannot be made) or a spawn that fails later is that job's end, reported as LAUNCH_FAILED with
 * the error; every per-job step of a tick is guarded the same way.
 */

// The wrapper traps (not ignores: an ignored signal would be inherited by the job) TERM/INT/HUP before
// it starts the command, so a stop that arrives early never kills the wrapper alone; it waits until
// the command is really gone, then records its exit status. A trapped signal interrupts `wait` with
// 128+signal while the command still runs (its own trap checkpointing): wait again. When the command
// ended between that and the check, the shell still holds its real status for one more `wait`
// (127 means it had none left, so 128+signal was the real one): without that second look, a job that
// caught SIGTERM and exited 0 was now and then recorded as 143 (seen in CI; about 1 in 1,000 stops in a loop here).
const WRAPPER = `trap ':' TERM INT HUP
/bin/sh -c "$1" &
child=$!
while :; do
  wait "$child"; rc=$?
  [ "$rc" -le 128 ] && break
  kill -0 "$child" 2>/dev/null && continue
  wait "$child"; again=$?
  [ "$again" -ne 127 ] && rc=$again
  break
done
echo "$rc" > "$2.tmp" && mv "$2.tmp" "$2"
exit "$rc"`;

export type LocalStatus = "WAITING" | "RUNNING" | "EXITED";

/** `jobs/<segment>/fenced`: the fence watch stopped this run while no agent ran (fence-watch.ts). */
export const FENCED_MARK = "fenced";

export interface LocalJob {
  jobId: number;
  segmentId: string;
  gpuIndexes: number[];
  status: LocalStatus;
  pid: number | null;
  /** /proc/<pid>/stat starttime: guards against pid reuse after a restart. */
  pidStart: string | null;
  launchedAt: string | null;
  exitCode: number | null;
  signal: string | null;
  endedAt: string | null;
  /** SIGTERM sent; SIGKILL at killAt (ms). */
  stopReason: string | null;
  killAt: number | null;
  /** Log bytes already uploaded. */
  offsets: { stdout: number; stderr: number };
  /** Assignment kept while waiting for GPUs to free up. */
  assignment?: RunAssignment;
  /** Loaded WAITING from state.json: not launched until a heartbeat answer assigns it again. */
  unconfirmed?: boolean;
  /** LAUNCH_FAILED: the error that kept the process from starting. */
  launchError?: string;
  /** Stopped by fencing (no control plane): its exit is reported as FENCED. */
  fenced?: boolean;
  /** Stopped by the agent's own shutdown (--stop-jobs-on-exit): reported as AGENT_SHUTDOWN. */
  shutdown?: boolean;
  /** Its cgroup v2 folder, where the host has them. */
  cgroup?: string;
  /** An interactive session: the port picked for its server (before launch), and its working folder. */
  sessionPort?: number;
  sessionDir?: string;
  /** Its server listens on sessionPort as the job's user (port-listener.ts): from then on the port is reported. */
  sessionListening?: boolean;
  fakeUtil?: number;
}

interface StateFile {
  version: 1;
  jobs: LocalJob[];
}

const SIGNALS = Object.fromEntries(Object.entries(osConstants.signals).map(([name, n]) => [n, name])) as Record<number, string>;
/** One log chunk (one stored row): 32 KiB. */
const MAX_CHUNK = 32 * 1024;
/**
 * Bytes of one stream one heartbeat may carry, as several chunks: a job that prints a lot catches up
 * within a few beats instead of trickling out at one chunk per beat (minutes behind), and still cannot
 * take a whole heartbeat from the other jobs' streams.
 */
export const LOG_BYTES_PER_STREAM = 1024 * 1024;
/**
 * Bytes (UTF-8, as the control plane counts them) of log text one heartbeat carries in all: half the
 * control plane's per-beat limit, so no number of jobs can get a heartbeat refused. What does not fit
 * waits for the next beat, each stream from where it stopped (nothing lost or reordered).
 */
export const LOG_BYTES_PER_BEAT = LIMITS.logBytesPerBeat / 2;
/** Log chunks one heartbeat carries at most: half the control plane's per-beat count, as for the bytes. */
export const LOG_CHUNKS_PER_BEAT = LIMITS.logChunksPerBeat / 2;

/** Segment ids are numbers: order them as numbers (padded), then by stream. */
const streamKey = (segmentId: string, stream: "stdout" | "stderr") => `${segmentId.padStart(20, "0")}/${stream}`;
const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Does any process of this process group remain? (The wrapper may be gone while the job lives on.) */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function procStart(pid: number): { start: string; zombie: boolean; stopped: boolean } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // stopped: paused by a signal (SIGSTOP, SIGTSTP) or a tracer, so it runs no code of its own
    return { start: rest[19] ?? "", zombie: rest[0] === "Z" || rest[0] === "X", stopped: rest[0] === "T" || rest[0] === "t" };
  } catch {
    return null;
  }
}

export interface RunnerOptions {
  dir: string;
  nodeName: string;
  log: (line: string) => void;
  /** Extra environment every job gets (e.g. PATH). */
  baseEnv?: Record<string, string>;
  /** Who a job runs as (its Tranche user's uid, see job-identity.ts); null or absent: the agent's own user. */
  jobIds?: (a: RunAssignment) => JobIds | null;
  /** Per-job cgroups v2 (absent: process groups only). */
  cgroups?: JobCgroups;
  /**
   * A folder every node mounts at the same path (--checkpoint-root): each job's checkpoint folder is
   * `<root>/<job id>` there, so a job requeued to another host finds its checkpoints. Absent: a folder
   * beside the agent's state, kept across runs on this host only.
   */
  checkpointRoot?: string;
  /** Where the control plane reaches this node's interactive sessions (default: the host name). */
  sessionHost?: string;
}

/** The file a job touches after each checkpoint: its modification time is reported as the job's last checkpoint. */
export const CHECKPOINT_MARK = ".tranche-checkpoint";

/** Read an exit file the job's own user could have replaced: no symlinks, no FIFOs, a few bytes at most. */
function readExitCode(path: string): number | null {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    const rc = Number(buf.subarray(0, n).toString("utf8").trim());
    return Number.isInteger(rc) ? rc : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export class JobRunner {
  private readonly jobs = new Map<string, LocalJob>();
  private readonly children = new Map<string, ChildProcess>();
  private readonly statePath: string;
  onExit: (() => void) | null = null;
  /** Set by stopAll: nothing launches any more. */
  private halted = false;
  /** The log stream the last upload stopped before (its cap was reached); "" = start at the first. */
  private logResumeKey = "";
  /** Sessions whose port is being picked (asynchronous: they launch at the tick after). */
  private readonly picking = new Set<string>();
  /** Sessions whose port another user was found listening on (said once in the log). */
  private readonly sessionPortTaken = new Set<string>();

  constructor(private readonly opts: RunnerOptions) {
    mkdirSync(join(opts.dir, "jobs"), { recursive: true });
    // Jobs (other users) may pass through to their own folders but list nothing here.
    chmodSync(opts.dir, 0o711);
    chmodSync(join(opts.dir, "jobs"), 0o711);
    this.statePath = join(opts.dir, "state.json");
    this.load();
  }

  /**
   * jobs/<segment>/ belongs to the agent (mode 711) and holds the logs, so a job can never swap them
   * for a link to a file it may not read; jobs/<segment>/work/ is the job's (mode 700, its uid): its
   * working folder, TRANCHE_JOB_DIR, and the wrapper's exit file.
   */
  private jobDir(segmentId: string): string {
    return join(this.opts.dir, "jobs", segmentId);
  }

  private exitFile(segmentId: string): string {
    const current = join(this.jobDir(segmentId), "work", ".tranche-exit");
    const legacy = join(this.jobDir(segmentId), "exit"); // jobs launched by an agent before the work folder
    return !existsSync(current) && existsSync(legacy) ? legacy : current;
  }

  /** Where its jobs' cgroups are made, or null (process groups alone). */
  get cgroupBase(): string | null {
    return this.opts.cgroups?.base ?? null;
  }

  /** Restart reconciliation: adopt live processes, settle dead ones from their exit file. */
  private load(): void {
    if (!existsSync(this.statePath)) return;
    let state: StateFile;
    try {
      state = JSON.parse(readFileSync(this.statePath, "utf8")) as StateFile;
    } catch (e) {
      this.opts.log(`state file ${this.statePath} is unreadable (${(e as Error).message}); starting without it`);
      return;
    }
    for (const j of state.jobs ?? []) {
      this.jobs.set(j.segmentId, j);
      if (j.status === "WAITING") j.unconfirmed = true;
      if (j.status === "RUNNING") {
        const alive = j.pid !== null && this.isOurProcess(j);
        if (alive)
          this.opts.log(`adopted job ${j.jobId} (segment ${j.segmentId}, pid ${j.pid}) still running from before the restart`);
        else this.settleFromExitFile(j, UNTRACKED);
      }
    }
    this.save();
  }

  /**
   * At start, before anything is reported or launched: stop the processes of this node's jobs that no
   * adopted run owns, left by a predecessor whose state.json was lost (see strays.ts). Returns how many
   * process groups it stopped.
   */
  stopStrays(graceMs: number): Promise<number> {
    const owned = new Set([...this.jobs.values()].filter((j) => j.status === "RUNNING").map((j) => j.segmentId));
    return stopStrays({
      nodeName: this.opts.nodeName,
      dir: resolve(this.opts.dir),
      owned,
      graceMs,
      cgroupBase: this.opts.cgroups?.base ?? null,
      log: this.opts.log,
    });
  }

  private isOurProcess(j: LocalJob): boolean {
    if (j.pid === null) return false;
    const p = procStart(j.pid);
    if (p !== null && !p.zombie && p.start === j.pidStart) return true;
    // The wrapper is gone (killed before it could trap signals) but the job's group (or cgroup) lives on.
    return (p === null || p.zombie) && this.anyAlive(j);
  }

  /** Any process of the job left: its process group, or its cgroup (which also holds those that setsid'd). */
  private anyAlive(j: LocalJob): boolean {
    if (j.pid !== null && groupAlive(j.pid)) return true;
    return j.cgroup ? JobCgroups.pids(j.cgroup).length > 0 : false;
  }

  /**
   * When the job's command ended, on this process's clock (the one the heartbeat's `sentAt` is read
   * against). Learnt late (this agent was paused), it is the wrapper's exit file's time: its age against a
   * file written now in this agent's own folder (both the file system's times). Now when there is none.
   */
  private endedAtOf(exitFile: string): string {
    const now = Date.now();
    try {
      const file = lstatSync(exitFile);
      if (!file.isFile()) return new Date(now).toISOString();
      const probe = join(this.opts.dir, "clock-probe");
      writeFileSync(probe, "", { mode: 0o600 });
      const age = Math.max(0, statSync(probe).mtimeMs - file.mtimeMs);
      return new Date(now - age).toISOString();
    } catch {
      return new Date(now).toISOString();
    }
  }

  private settleFromExitFile(j: LocalJob, fallbackSignal: string | null): void {
    const exitFile = this.exitFile(j.segmentId);
    const rc = readExitCode(exitFile);
    if (!j.fenced && existsSync(join(this.jobDir(j.segmentId), FENCED_MARK))) {
      // Its exit status is whatever its own SIGTERM handler chose: the run was lost to the platform.
      j.fenced = true;
      j.stopReason ??= FENCED;
      this.opts.log(
        `job ${j.jobId} (segment ${j.segmentId}) was stopped by the fence watch while no agent ran (or its agent was paused) and the control plane had not answered past the heartbeat timeout: reported as fenced (requeued when it may be), not by its exit status`,
      );
    }
    j.status = "EXITED";
    j.endedAt = j.endedAt ?? this.endedAtOf(exitFile);
    if (j.cgroup) {
      JobCgroups.signal(j.cgroup, "SIGKILL");
      JobCgroups.remove(j.cgroup);
    }
    if (rc !== null) {
      j.exitCode = rc;
      j.signal = j.exitCode > 128 ? (SIGNALS[j.exitCode - 128] ?? null) : null;
    } else {
      j.exitCode = null;
      j.signal = j.signal ?? fallbackSignal;
    }
  }

  private save(): void {
    const state: StateFile = { version: 1, jobs: [...this.jobs.values()] };
    const tmp = `${this.statePath}.tmp`;
    // Mode 600: the jobs' commands and env are for the agent alone.
    writeFileSync(tmp, JSON.stringify(state, null, 1), { mode: 0o600 });
    renameSync(tmp, this.statePath);
  }

  /** GPU index -> fake utilization of the jobs running on them. */
  busyGpus(): Map<number, number> {
    const m = new Map<number, number>();
    for (const j of this.jobs.values()) if (j.status === "RUNNING") for (const g of j.gpuIndexes) m.set(g, j.fakeUtil ?? 90);
    return m;
  }

  list(): LocalJob[] {
    return [...this.jobs.values()];
  }

  /**
   * Apply the control plane's orders: start what is new, stop what must go. A stop's `graceUntil` is on
   * the control plane's clock (`serverNow`, the heartbeat answer's `serverTime`), so the grace is kept as
   * the time left on that clock: a host whose clock ran 4 minutes ahead read it as long past and killed
   * its victims with no grace at all (R6), one behind killed them minutes late.
   */
  reconcile(run: RunAssignment[], stop: StopOrder[], serverNow = Date.now()): void {
    let changed = false;
    const assigned = new Set(run.map((a) => a.segmentId));
    const stopping = new Set(stop.map((s) => s.segmentId));
    for (const j of [...this.jobs.values()]) {
      if (j.status !== "WAITING") continue;
      if (assigned.has(j.segmentId)) {
        if (j.unconfirmed) changed = true;
        delete j.unconfirmed;
      } else if (!stopping.has(j.segmentId)) {
        // The control plane no longer assigns it (cancelled or ended while we were away): never start it.
        this.opts.log(`job ${j.jobId} (segment ${j.segmentId}) is no longer assigned here; not starting it`);
        this.jobs.delete(j.segmentId);
        changed = true;
      }
    }
    for (const a of run) {
      if (this.jobs.has(a.segmentId)) continue;
      this.jobs.set(a.segmentId, {
        jobId: a.jobId,
        segmentId: a.segmentId,
        gpuIndexes: a.gpuIndexes,
        status: "WAITING",
        pid: null,
        pidStart: null,
        launchedAt: null,
        exitCode: null,
        signal: null,
        endedAt: null,
        stopReason: null,
        killAt: null,
        offsets: { stdout: 0, stderr: 0 },
        assignment: a,
        fakeUtil: a.env.TRANCHE_FAKE_GPU_UTIL !== undefined ? Number(a.env.TRANCHE_FAKE_GPU_UTIL) : undefined,
      });
      changed = true;
    }
    for (const s of stop) {
      const j = this.jobs.get(s.segmentId);
      if (!j) {
        // Stopped before this agent ever launched it: report it as gone so the run can be closed.
        this.jobs.set(s.segmentId, {
          jobId: s.jobId,
          segmentId: s.segmentId,
          gpuIndexes: [],
          status: "EXITED",
          pid: null,
          pidStart: null,
          launchedAt: null,
          exitCode: null,
          signal: "NEVER_STARTED",
          endedAt: new Date().toISOString(),
          stopReason: s.reason,
          killAt: null,
          offsets: { stdout: 0, stderr: 0 },
        });
        changed = true;
        continue;
      }
      if (j.status === "EXITED" || j.stopReason !== null) continue;
      j.stopReason = s.reason;
      j.killAt = Date.now() + Math.max(0, Date.parse(s.graceUntil) - serverNow);
      if (j.status === "WAITING") {
        j.status = "EXITED";
        j.signal = "NEVER_STARTED";
        j.endedAt = new Date().toISOString();
        delete j.assignment;
      } else if (j.pid !== null) {
        const graceSec = Math.round((j.killAt - Date.now()) / 1000);
        this.opts.log(`job ${j.jobId}: SIGTERM (${s.reason}), SIGKILL in ${graceSec} s unless it exits first`);
        this.signalGroup(j, "SIGTERM");
      }
      changed = true;
    }
    if (changed) this.save();
    this.tick();
  }

  private signalGroup(j: LocalJob, sig: NodeJS.Signals): void {
    if (j.cgroup) JobCgroups.signal(j.cgroup, sig);
    if (j.pid === null) return;
    try {
      process.kill(-j.pid, sig);
    } catch {
      // already gone
    }
  }

  /** Launch waiting jobs whose GPUs are free, escalate stops, notice exits of adopted processes. */
  tick(): void {
    let changed = false;
    const now = Date.now();
    for (const j of this.jobs.values()) {
      if (j.status !== "RUNNING") continue;
      try {
        if (!this.children.has(j.segmentId) && !this.isOurProcess(j)) {
          this.settleFromExitFile(j, j.stopReason ? "SIGKILL" : UNTRACKED);
          changed = true;
          this.onExit?.();
          continue;
        }
        if (j.killAt !== null && now >= j.killAt) {
          this.opts.log(`job ${j.jobId}: grace over, SIGKILL`);
          this.signalGroup(j, "SIGKILL");
          j.killAt = now + 5_000; // again in 5 s if it is still there
          changed = true;
        }
      } catch (e) {
        this.opts.log(`job ${j.jobId}: could not check its process (${(e as Error).message}); trying again next tick`);
      }
    }
    const held = new Set<number>();
    for (const j of this.jobs.values()) if (j.status === "RUNNING") for (const g of j.gpuIndexes) held.add(g);
    for (const j of this.jobs.values()) {
      if (this.halted || j.status !== "WAITING" || !j.assignment || j.unconfirmed) continue;
      // Victims preempted for this job leave first: launch once its GPUs are free here.
      if (j.gpuIndexes.some((g) => held.has(g))) continue;
      // A session's server needs a port first (picked asynchronously; the tick after launches it).
      if (j.assignment.session && j.sessionPort === undefined) {
        this.pickSessionPort(j);
        continue;
      }
      try {
        this.launch(j, j.assignment);
        for (const g of j.gpuIndexes) held.add(g);
      } catch (e) {
        this.launchFailed(j, e as Error);
      }
      changed = true;
    }
    if (changed) this.trySave();
  }

  private pickSessionPort(j: LocalJob): void {
    if (this.picking.has(j.segmentId)) return;
    this.picking.add(j.segmentId);
    pickPort().then(
      (port) => {
        this.picking.delete(j.segmentId);
        if (j.status !== "WAITING") return;
        j.sessionPort = port;
        this.trySave();
        this.tick();
      },
      (e: Error) => {
        this.picking.delete(j.segmentId);
        if (j.status !== "WAITING") return;
        this.launchFailed(j, new Error(`no free port for the session's server: ${e.message}`));
        this.trySave();
      },
    );
  }

  /** The job could not be started: it ends here, reported as LAUNCH_FAILED with the error. */
  private launchFailed(j: LocalJob, e: Error): void {
    const message = (e.message || String(e)).slice(0, LAUNCH_ERROR_MAX);
    this.opts.log(`job ${j.jobId} could not be started: ${message}`);
    this.children.delete(j.segmentId);
    j.status = "EXITED";
    j.pid = null;
    j.pidStart = null;
    j.exitCode = null;
    j.signal = LAUNCH_FAILED;
    j.launchError = message;
    j.endedAt = new Date().toISOString();
    delete j.assignment;
    this.onExit?.();
  }

  /** save() for callbacks and timers, where a throw would end the agent: a failed write is retried at the next change. */
  private trySave(): void {
    try {
      this.save();
    } catch (e) {
      this.opts.log(`could not write ${this.statePath} (${(e as Error).message}); will retry`);
    }
  }

  private launch(j: LocalJob, a: RunAssignment): void {
    const ids = this.opts.jobIds?.(a) ?? null;
    const dir = this.jobDir(a.segmentId);
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    chmodSync(dir, 0o711);
    const work = join(dir, "work");
    mkdirSync(work, { recursive: true, mode: 0o700 });
    // Checkpoints outlive a run: one folder per job, on the shared root when there is one (the same path
    // on every node), else beside this agent's state. Only the job's own uid may enter it.
    const ckptRoot = this.checkpointRoot();
    const ckptDir = this.checkpointDir(a.jobId);
    mkdirSync(ckptDir, { recursive: true, mode: 0o700 });
    if (ids) {
      // Other jobs' uids may pass through the root to their own folder, never list it.
      if (statSync(ckptRoot).uid === process.getuid?.()) chmodSync(ckptRoot, 0o711);
      for (const d of [work, ckptDir]) {
        chownSync(d, ids.uid, ids.gid);
        chmodSync(d, 0o700);
      }
    }
    // Opened by the agent before the switch of user: the job writes its logs through these, nothing more.
    // An interactive session runs its server, not a command, in the user's session folder on the root.
    const session = a.session
      ? sessionLaunch(a, {
          root: ckptRoot,
          port: j.sessionPort!,
          nodeName: this.opts.nodeName,
          path: ids
            ? pathForOtherUser(process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin")
            : (process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"),
          ids,
        })
      : null;
    const out = openSync(join(dir, "stdout.log"), "a", 0o600);
    const err = openSync(join(dir, "stderr.log"), "a", 0o600);
    const agentPath = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
    const env: Record<string, string> = {
      PATH: ids ? pathForOtherUser(agentPath) : agentPath,
      HOME: ids ? work : (process.env.HOME ?? "/tmp"),
      LANG: process.env.LANG ?? "C.UTF-8",
      ...this.opts.baseEnv,
      ...a.env,
      CUDA_VISIBLE_DEVICES: a.gpuIndexes.join(","),
      TRANCHE_JOB_ID: String(a.jobId),
      TRANCHE_JOB_NAME: a.name,
      TRANCHE_SEGMENT_ID: a.segmentId,
      TRANCHE_NODE_NAME: this.opts.nodeName,
      TRANCHE_NODES: a.nodes.join(","),
      TRANCHE_NODE_RANK: String(a.rank),
      TRANCHE_NUM_NODES: String(a.nodes.length),
      TRANCHE_GPUS: String(a.gpuIndexes.length),
      TRANCHE_GRACE_PERIOD: String(a.gracePeriodSec),
      // Absolute: the job's cwd is not the agent's, and strays.ts knows this node's jobs by it.
      TRANCHE_JOB_DIR: resolve(work),
      TRANCHE_CHECKPOINT_DIR: ckptDir,
      TRANCHE_RESTART_COUNT: String(a.restartCount ?? 0),
      ...(session ? { ...session.env, ...(ids ? { HOME: session.dir } : {}) } : {}),
    };
    let child: ChildProcess;
    try {
      child = spawn("/bin/sh", ["-c", WRAPPER, "tranche-job", session?.command ?? a.command, join(work, ".tranche-exit")], {
        cwd: session?.dir ?? work,
        env,
        detached: true,
        stdio: ["ignore", out, err],
        ...(ids ? { uid: ids.uid, gid: ids.gid } : {}),
      });
    } finally {
      closeSync(out);
      closeSync(err);
    }
    // At once, before the wrapper has started the command: everything the job forks lands in its cgroup.
    if (child.pid !== undefined && this.opts.cgroups) j.cgroup = this.opts.cgroups.adopt(a.segmentId, child.pid) ?? undefined;
    j.status = "RUNNING";
    j.pid = child.pid ?? null;
    j.pidStart = j.pid !== null ? (procStart(j.pid)?.start ?? null) : null;
    j.launchedAt = new Date().toISOString();
    if (session) j.sessionDir = session.dir;
    delete j.assignment;
    this.children.set(a.segmentId, child);
    this.opts.log(`job ${a.jobId} started (segment ${a.segmentId}, pid ${j.pid}, GPUs ${a.gpuIndexes.join(",")})`);
    child.on("error", (e) => {
      // A spawn that fails after the call (ENOENT, EACCES, EAGAIN): no process ever ran.
      if (j.status !== "RUNNING" || j.pid !== null) return this.opts.log(`job ${a.jobId}: ${e.message}`);
      this.launchFailed(j, e);
      this.trySave();
    });
    child.on("exit", (code, signal) => {
      this.children.delete(a.segmentId);
      const exitFile = this.exitFile(a.segmentId);
      if (!existsSync(exitFile) && this.anyAlive(j)) {
        // Only the wrapper died; tick() follows the rest of the group (and escalates the stop).
        j.signal = signal ?? null;
        return;
      }
      j.status = "EXITED";
      j.endedAt = this.endedAtOf(exitFile);
      if (existsSync(exitFile)) {
        this.settleFromExitFile(j, null);
      } else {
        j.exitCode = code;
        j.signal = signal ?? null;
      }
      // A job's processes end with it: stragglers it left in the background are killed.
      if (this.anyAlive(j)) this.signalGroup(j, "SIGKILL");
      if (j.cgroup) JobCgroups.remove(j.cgroup);
      this.opts.log(`job ${a.jobId} exited (${j.exitCode !== null ? `code ${j.exitCode}` : `signal ${j.signal}`})`);
      this.trySave();
      this.onExit?.();
    });
    child.unref();
  }

  /** Statuses for the heartbeat. */
  reports(): JobReport[] {
    return [...this.jobs.values()]
      .filter((j) => j.status !== "WAITING")
      .map((j) => ({
        jobId: j.jobId,
        segmentId: j.segmentId,
        status: j.status === "EXITED" ? "EXITED" : "RUNNING",
        pid: j.pid,
        launchedAt: j.launchedAt,
        exitCode: j.status === "EXITED" && !j.fenced && !j.shutdown ? j.exitCode : null,
        signal: j.status === "EXITED" ? (j.fenced ? FENCED : j.shutdown ? AGENT_SHUTDOWN : j.signal) : null,
        endedAt: j.status === "EXITED" ? j.endedAt : null,
        ...(j.launchError ? { launchError: j.launchError } : {}),
        ...this.checkpointAt(j.jobId),
        ...(j.status === "RUNNING" && j.sessionPort !== undefined && j.sessionDir !== undefined && this.sessionListening(j)
          ? { session: { host: this.opts.sessionHost ?? hostname(), port: j.sessionPort, dir: j.sessionDir } }
          : {}),
      }));
  }

  /**
   * Does the session's server listen on its port, as the job's user alone? Until it does the port is
   * not reported: the proxy would send its owner's requests, with the session's token, to whoever took
   * the port first (port-listener.ts).
   */
  private sessionListening(j: LocalJob): boolean {
    if (j.sessionListening) return true;
    if (j.pid === null || j.sessionPort === undefined) return false;
    // A host without Linux's socket tables (a laptop's demo) has nobody to tell apart: reported as it runs.
    if (!existsSync("/proc/net/tcp")) return (j.sessionListening = true);
    let uid: number;
    try {
      uid = statSync(`/proc/${j.pid}`).uid; // the job's user: its process runs as it
    } catch {
      return false;
    }
    if (listensAlone(j.sessionPort, uid)) {
      j.sessionListening = true;
      return true;
    }
    const others = (listenerUids(j.sessionPort) ?? []).filter((u) => u !== uid);
    if (others.length > 0 && !this.sessionPortTaken.has(j.segmentId)) {
      this.sessionPortTaken.add(j.segmentId);
      this.opts.log(
        `job ${j.jobId}: port ${j.sessionPort}, picked for its session's server, is taken by uid ${others.join(", ")}; the port is not reported, so no request for the session goes there`,
      );
    }
    return false;
  }

  private checkpointRoot(): string {
    return this.opts.checkpointRoot ?? join(this.opts.dir, "..", "checkpoints");
  }

  checkpointDir(jobId: number): string {
    return join(this.checkpointRoot(), String(jobId));
  }

  /** The job's last checkpoint: the mtime of the mark file it touches (a plain file, never a link). */
  private checkpointAt(jobId: number): { checkpointAt?: string } {
    try {
      const st = lstatSync(join(this.checkpointDir(jobId), CHECKPOINT_MARK));
      return st.isFile() ? { checkpointAt: st.mtime.toISOString() } : {};
    } catch {
      return {};
    }
  }

  /**
   * New log bytes since the last upload: at most LOG_BYTES_PER_STREAM per stream and job (in chunks of
   * 32 KiB), and at most `maxBytes` and LOG_CHUNKS_PER_BEAT chunks in all. Streams are visited in a
   * fixed order starting where the previous upload stopped, so a few busy jobs cannot keep the others'
   * output waiting. `drained`: the exited runs whose whole output is in these chunks or was sent before.
   * `backlog`: output is left over for the next upload (the agent then sends it soon, not a period later).
   */
  pendingLogs(maxBytes = LOG_BYTES_PER_BEAT): {
    chunks: LogChunk[];
    commit: () => void;
    drained: Set<string>;
    backlog: boolean;
  } {
    const chunks: LogChunk[] = [];
    const moves: (() => void)[] = [];
    const streams = [...this.jobs.values()]
      .filter((j) => j.launchedAt !== null)
      .flatMap((j) => (["stdout", "stderr"] as const).map((stream) => ({ j, stream, key: streamKey(j.segmentId, stream) })))
      .sort((a, b) => compareKeys(a.key, b.key));
    const first = streams.findIndex((s) => compareKeys(s.key, this.logResumeKey) >= 0);
    const order = first <= 0 ? streams : [...streams.slice(first), ...streams.slice(0, first)];
    let bytes = 0;
    let resumeAt: string | null = null;
    let backlog = false;
    const sentTo = new Map<string, number>(); // stream key -> its offset once these chunks are stored
    visit: for (const { j, stream, key } of order) {
      let streamBytes = 0;
      let from = j.offsets[stream];
      for (;;) {
        const chunk = this.readLog(j, stream, from);
        if (!chunk) break;
        const size = Buffer.byteLength(chunk.text, "utf8");
        if (streamBytes > 0 && streamBytes + size > LOG_BYTES_PER_STREAM) {
          backlog = true; // this stream's share is used: the rest goes in the next upload
          break;
        }
        if ((bytes + size > maxBytes || chunks.length >= LOG_CHUNKS_PER_BEAT) && chunks.length > 0) {
          resumeAt = key; // this stream goes first next time
          backlog = true;
          break visit;
        }
        bytes += size;
        streamBytes += size;
        const to = (from = chunk.to);
        sentTo.set(key, to);
        chunks.push({ jobId: j.jobId, segmentId: j.segmentId, stream, text: chunk.text });
        moves.push(() => {
          j.offsets[stream] = to;
        });
      }
    }
    const drained = new Set<string>();
    for (const j of this.jobs.values()) {
      if (j.status !== "EXITED") continue;
      const left = (["stdout", "stderr"] as const).some(
        (stream) =>
          j.launchedAt !== null &&
          this.logSize(j.segmentId, stream) > (sentTo.get(streamKey(j.segmentId, stream)) ?? j.offsets[stream]),
      );
      if (!left) drained.add(j.segmentId);
    }
    return {
      chunks,
      drained,
      backlog,
      commit: () => {
        for (const m of moves) m();
        this.logResumeKey = resumeAt ?? "";
        if (moves.length) this.trySave();
      },
    };
  }

  private logSize(segmentId: string, stream: "stdout" | "stderr"): number {
    try {
      return statSync(join(this.jobDir(segmentId), `${stream}.log`)).size;
    } catch {
      return 0;
    }
  }

  /** The piece (at most 32 KiB, whole UTF-8 characters) of a job's log file from byte `from`, or null. */
  private readLog(j: LocalJob, stream: "stdout" | "stderr", from: number): { text: string; to: number } | null {
    const path = join(this.jobDir(j.segmentId), `${stream}.log`);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return null;
    }
    if (size <= from) return null;
    const len = Math.min(MAX_CHUNK, size - from);
    const buf = Buffer.alloc(len);
    try {
      const fd = openSync(path, "r");
      try {
        readSync(fd, buf, 0, len, from);
      } finally {
        closeSync(fd);
      }
    } catch {
      return null; // unreadable this time: the next heartbeat tries again
    }
    // Do not split a UTF-8 character: end before an incomplete trailing sequence. When that sequence is
    // all there is, a running job's next write completes it: wait for it (sent now, it became U+FFFD and
    // its other half another). Only an ended job's output stays cut, and goes as it is.
    let end = len;
    let i = len - 1;
    while (i > 0 && len - i < 4 && (buf[i]! & 0xc0) === 0x80) i--;
    const lead = buf[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (len - i < need) end = i;
    if (end === 0 && j.status !== "EXITED") return null;
    if (end === 0) end = len;
    return { text: buf.subarray(0, end).toString("utf8"), to: from + end };
  }

  /** The control plane recorded these exits: forget them (their folders stay for inspection). */
  forget(segmentIds: string[]): void {
    let changed = false;
    for (const id of segmentIds) {
      const j = this.jobs.get(id);
      if (!j || j.status !== "EXITED") continue;
      // Keep it until its logs are uploaded.
      const dir = this.jobDir(id);
      const pendingBytes = (["stdout", "stderr"] as const).some((s) => {
        try {
          return statSync(join(dir, `${s}.log`)).size > j.offsets[s];
        } catch {
          return false;
        }
      });
      if (pendingBytes) continue;
      this.jobs.delete(id);
      changed = true;
    }
    if (changed) this.save();
  }

  /**
   * Fencing: the control plane is out of reach past the heartbeat timeout. SIGTERM every running job
   * (SIGKILL at `graceMs` at the latest, by tick) and keep waiting ones from launching until the
   * control plane assigns them again. Their exits are reported as FENCED. Returns how many it stopped.
   */
  fence(graceMs: number): number {
    const now = Date.now();
    let n = 0;
    for (const j of this.jobs.values()) {
      if (j.status === "WAITING") j.unconfirmed = true;
      if (j.status !== "RUNNING") continue;
      // Its command already ended by itself (the wrapper wrote its status) while this agent could not
      // see it (paused): its exit is the job's own, reported as it is, not as fenced.
      if (existsSync(this.exitFile(j.segmentId))) continue;
      j.fenced = true;
      if (j.stopReason === null) j.stopReason = FENCED;
      j.killAt = Math.min(j.killAt ?? Infinity, now + graceMs);
      this.signalGroup(j, "SIGTERM");
      n++;
    }
    this.trySave();
    return n;
  }

  /** SIGTERM every running job, SIGKILL what is left after `graceMs`; resolves when all are gone. */
  async stopAll(graceMs: number): Promise<void> {
    this.halted = true; // a stopping agent launches nothing more
    const running = [...this.jobs.values()].filter((j) => j.status === "RUNNING");
    // Marked (and saved) first: whoever reports these exits — this agent's last heartbeat or the next start — says why.
    for (const j of running) if (j.stopReason === null) j.shutdown = true;
    this.trySave();
    for (const j of running) this.signalGroup(j, "SIGTERM");
    const deadline = Date.now() + graceMs;
    const alive = () => running.filter((j) => this.isOurProcess(j));
    while (alive().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const j of alive()) this.signalGroup(j, "SIGKILL");
    while (alive().length > 0 && Date.now() < deadline + 2000) await new Promise((r) => setTimeout(r, 50));
    this.tick(); // settle the adopted ones (no child handle) before a final report
  }

  /** Remove job folders older than `maxAgeMs` that are no longer tracked. */
  prune(maxAgeMs: number): void {
    const root = join(this.opts.dir, "jobs");
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    for (const n of names) {
      if (this.jobs.has(n)) continue;
      try {
        if (Date.now() - statSync(join(root, n)).mtimeMs > maxAgeMs) rmSync(join(root, n), { recursive: true, force: true });
      } catch {
        // ignore
      }
    }
  }
}
