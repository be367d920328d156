import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FENCED_MARK, procStart } from "./runner";
import { findStrays, stopStrays } from "./strays";

/**
 * R9 when the agent itself is gone. A running agent fences its own jobs once the control plane stops
 * answering (agent.ts, checkFence), but an agent that was stopped, killed or crashed fences nothing,
 * while the control plane still declares its node DOWN after heartbeatTimeout + fenceGrace and requeues
 * the jobs elsewhere: the copy left running here and the new one would run at once (seen: an agent
 * stopped for 60 s, both copies of its job ran together for 25 s). Stopping the agent must stay harmless
 * (a restart adopts its jobs), so the guard cannot be the agent: every agent process starts this watch,
 * detached (a session of its own, as the agent's user, which jobs running as other uids cannot signal),
 * and it outlives the agent:
 *
 * - while the agent that started it runs, it only looks once a second (the agent fences itself);
 * - while that agent is paused (SIGSTOP, a debugger: alive but running no code), it cannot fence, yet its
 *   node goes DOWN all the same (seen: a job paused with its agent ran on two nodes at once): the watch then
 *   fences its nodes on the same deadline as below, and carries on watching, since the agent may resume;
 * - once that agent is gone, for each of its nodes that no other live agent has taken over (the folder's
 *   `agent.pid` names a running process) and that still has job processes: when the last answered
 *   heartbeat (`contact.json`) is older than the fence's timeout, it stops every process marked as that
 *   node's job (strays.ts), SIGTERM then SIGKILL after the fence grace, the deadline and grace the agent
 *   itself keeps, so they are gone before the control plane declares the node DOWN; each run is first
 *   marked `jobs/<segment>/fenced`, so the next agent reports its exit as FENCED (lost, requeued when it
 *   may be), never as the exit status the job's own SIGTERM handler chose;
 * - it exits once its agent is gone and each node is fenced, taken over, or has no job process left.
 *
 * Lines go to `<node folder>/fence-watch.log` (it has no terminal); the next agent logs each fenced run.
 */

export interface FenceWatchNode {
  name: string;
  /** The node's state folder, absolute (as strays.ts matches it). */
  dir: string;
  /** Its jobs' cgroup folder, or null (process groups alone). */
  cgroupBase: string | null;
}

export interface FenceWatchSpec {
  /** The agent process it guards for. */
  agent: ProcessId;
  nodes: FenceWatchNode[];
}

/** A process by pid and its /proc start time (null where there is no /proc): a recycled pid is not it. */
export interface ProcessId {
  pid: number;
  start: string | null;
}

/** The live agent of a node folder, written by each agent at start. */
export const AGENT_PID_FILE = "agent.pid";
/** The agent's own defaults, until the control plane has said otherwise (contact.json). */
const DEFAULT_FENCE = { afterSec: 30, graceSec: 8 };
const TICK_MS = 1000;

export function thisProcess(): ProcessId {
  return { pid: process.pid, start: procStart(process.pid)?.start ?? null };
}

export function isRunning(p: ProcessId): boolean {
  if (existsSync("/proc/self/stat")) {
    const s = procStart(p.pid);
    return s !== null && !s.zombie && (p.start === null || s.start === p.start);
  }
  try {
    process.kill(p.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Marks `dir` as this agent's, so a watch left by a predecessor leaves it alone. */
export function claimNodeFolder(dir: string): void {
  writeFileSync(join(dir, AGENT_PID_FILE), JSON.stringify(thisProcess()), { mode: 0o600 });
}

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return null;
  }
}

/** The last answered heartbeat (ms) and the fence the control plane gave, as the agent kept them. */
function contactOf(dir: string): { at: number | null; fence: { afterSec: number; graceSec: number } } {
  const c = readJson<{ at?: unknown; fence?: { afterSec?: unknown; graceSec?: unknown } }>(join(dir, "contact.json"));
  const f = c?.fence;
  const fence =
    f && typeof f.afterSec === "number" && f.afterSec > 0 && typeof f.graceSec === "number" && f.graceSec >= 0
      ? { afterSec: f.afterSec, graceSec: f.graceSec }
      : DEFAULT_FENCE;
  return { at: typeof c?.at === "number" ? c.at : null, fence };
}

/** The watch's memory between rounds. */
export class FenceWatch {
  /** Node folders it no longer guards: fenced, taken over, or without job processes. */
  private readonly done = new Set<string>();
  private readonly stopping: Promise<unknown>[] = [];
  /** When it first found its agent gone (ms). */
  private goneAt: number | null = null;
  /** When it first found its agent paused (ms), and the node folders it fenced during that pause. */
  private pausedAt: number | null = null;
  private readonly fencedWhilePaused = new Set<string>();

  constructor(
    private readonly spec: FenceWatchSpec,
    private readonly procRoot = "/proc",
  ) {}

  /** One look; true once there is nothing left to guard (stops in flight still to be awaited). */
  round(now = Date.now()): boolean {
    if (isRunning(this.spec.agent)) {
      if (procStart(this.spec.agent.pid)?.stopped) this.whilePaused(now);
      else {
        this.pausedAt = null; // running again, it fences itself; a later pause counts afresh
        this.fencedWhilePaused.clear();
      }
      return false;
    }
    this.goneAt ??= now;
    for (const n of this.spec.nodes) {
      if (this.done.has(n.dir)) continue;
      const current = readJson<ProcessId>(join(n.dir, AGENT_PID_FILE));
      if (current && current.pid !== this.spec.agent.pid && isRunning(current)) {
        this.done.add(n.dir); // a new agent adopted its jobs and fences them itself
        continue;
      }
      if (findStrays(n.name, n.dir, new Set(), this.procRoot).length === 0) {
        this.done.add(n.dir); // nothing runs, and nothing launches without an agent
        continue;
      }
      const { at, fence } = contactOf(n.dir);
      const silentMs = now - (at ?? this.goneAt);
      if (silentMs <= fence.afterSec * 1000) continue;
      this.done.add(n.dir);
      this.stopping.push(this.fence(n, fence.graceSec, silentMs, "which has stopped"));
    }
    return this.done.size === this.spec.nodes.length;
  }

  /** The agent is alive but paused: each of its nodes silent past the timeout is fenced once per pause. */
  private whilePaused(now: number): void {
    this.pausedAt ??= now;
    for (const n of this.spec.nodes) {
      if (this.fencedWhilePaused.has(n.dir)) continue;
      const { at, fence } = contactOf(n.dir);
      const silentMs = now - (at ?? this.pausedAt);
      if (silentMs <= fence.afterSec * 1000) continue;
      if (findStrays(n.name, n.dir, new Set(), this.procRoot).length === 0) continue;
      this.fencedWhilePaused.add(n.dir);
      this.stopping.push(this.fence(n, fence.graceSec, silentMs, "which is paused"));
    }
  }

  private fence(n: FenceWatchNode, graceSec: number, silentMs: number, agentIs: string): Promise<number> {
    const log = (line: string) => {
      try {
        appendFileSync(join(n.dir, "fence-watch.log"), `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
      } catch {
        // the folder is gone: nobody would read it
      }
    };
    return stopStrays({
      nodeName: n.name,
      dir: n.dir,
      owned: new Set(),
      graceMs: graceSec * 1000,
      cgroupBase: n.cgroupBase,
      log,
      procRoot: this.procRoot,
      why: `left running by its agent (pid ${this.spec.agent.pid}), ${agentIs}, and no answer from the control plane for ${Math.round(silentMs / 1000)} s`,
      beforeSignal: (strays) => {
        for (const seg of new Set(strays.map((s) => s.segmentId))) {
          try {
            writeFileSync(join(n.dir, "jobs", seg, FENCED_MARK), `${new Date().toISOString()}\n`, { mode: 0o600 });
          } catch (e) {
            log(`could not mark segment ${seg} fenced (${(e as Error).message})`);
          }
        }
      },
    }).catch((e: Error) => {
      log(`stopping the jobs failed: ${e.message}`);
      return 0;
    });
  }

  /** Rounds once a second until nothing is left to guard. */
  async run(): Promise<void> {
    while (!this.round()) await new Promise((r) => setTimeout(r, TICK_MS));
    await Promise.all(this.stopping);
  }
}

/**
 * Starts the watch for this agent process's nodes (a detached `node` running fence-watch-main with the
 * agent's own loader flags, e.g. `--import tsx`); it carries on after this process ends.
 */
export function startFenceWatch(nodes: FenceWatchNode[], log: (line: string) => void): void {
  const here = fileURLToPath(import.meta.url);
  const main = join(here, "..", `fence-watch-main${extname(here)}`);
  const spec: FenceWatchSpec = { agent: thisProcess(), nodes };
  const flags = process.execArgv.filter((a) => !a.startsWith("--inspect"));
  try {
    const child = spawn(process.execPath, [...flags, main, JSON.stringify(spec)], { detached: true, stdio: "ignore" });
    child.on("error", (e) =>
      log(`tranche-agent: could not start the fence watch (${e.message}): jobs left running by a stopped agent are not fenced`),
    );
    child.unref();
  } catch (e) {
    log(
      `tranche-agent: could not start the fence watch (${(e as Error).message}): jobs left running by a stopped agent are not fenced`,
    );
  }
}
