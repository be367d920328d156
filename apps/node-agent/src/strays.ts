import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JobCgroups } from "./cgroup";

/**
 * Job processes this node launched but no longer has a record of: their state folder was wiped or
 * replaced while they ran (an operator's mistake, a host re-provisioned with a fresh state disk, a
 * container restarted without its volume). A fresh agent knows nothing of them, so they would keep
 * their GPUs while the control plane requeues their jobs elsewhere: the job would run twice. The agent
 * stops them at start, before it reports or launches anything.
 *
 * The marker is the environment the runner gives every job, after the job's own variables (so a
 * job's env cannot forge it at launch), read from /proc/<pid>/environ: TRANCHE_NODE_NAME is this node
 * and TRANCHE_JOB_DIR is exactly `<this node's state folder>/jobs/<TRANCHE_SEGMENT_ID>/work`. Only a
 * process started by an agent for this node name and this state folder, or one of that job's own
 * descendants, carries it: another agent's jobs on the same host (another state folder) and every
 * other process (no such variables) are never touched. A whole process group is signalled only when
 * its leader carries the marker (a job's group is the session the runner made for its wrapper, so all
 * in it descend from the job); else the marked processes one by one.
 */

export interface Stray {
  pid: number;
  pgid: number;
  segmentId: string;
  jobId: string;
}

/** pgrp and state of a process from /proc/<pid>/stat, or null when it is gone. */
function stat(procRoot: string, pid: number): { pgid: number; zombie: boolean } | null {
  try {
    const s = readFileSync(join(procRoot, String(pid), "stat"), "utf8");
    const rest = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { pgid: Number(rest[2]), zombie: rest[0] === "Z" || rest[0] === "X" };
  } catch {
    return null;
  }
}

/** The marked run a process belongs to, or null (not a job of this node and folder, or unreadable). */
function markOf(procRoot: string, pid: number, nodeName: string, dir: string): { segmentId: string; jobId: string } | null {
  let environ: string;
  try {
    environ = readFileSync(join(procRoot, String(pid), "environ"), "latin1");
  } catch {
    return null; // gone, or another user's process to an agent that is not root: not ours either way
  }
  const env = new Map<string, string>();
  for (const kv of environ.split("\0")) {
    const eq = kv.indexOf("=");
    if (eq > 0 && kv.startsWith("TRANCHE_")) env.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  const segmentId = env.get("TRANCHE_SEGMENT_ID");
  if (!segmentId || !/^\d+$/.test(segmentId) || env.get("TRANCHE_NODE_NAME") !== nodeName) return null;
  if (env.get("TRANCHE_JOB_DIR") !== join(dir, "jobs", segmentId, "work")) return null;
  return { segmentId, jobId: env.get("TRANCHE_JOB_ID") ?? "?" };
}

/**
 * Every live process marked as a job of `nodeName` with the state folder `dir` (absolute) whose
 * segment is not in `owned` (the runs this agent adopted). Never this process itself.
 */
export function findStrays(nodeName: string, dir: string, owned: Set<string>, procRoot = "/proc"): Stray[] {
  let pids: number[];
  try {
    pids = readdirSync(procRoot)
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return []; // no /proc (not Linux): nothing can be found this way
  }
  const out: Stray[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const mark = markOf(procRoot, pid, nodeName, dir);
    if (!mark || owned.has(mark.segmentId)) continue;
    const st = stat(procRoot, pid);
    if (!st || st.zombie) continue;
    out.push({ pid, pgid: st.pgid, ...mark });
  }
  return out;
}

/** Signal the strays: a group whose leader is one of them as a group (and its job's cgroup), the rest one by one. */
function signalStrays(strays: Stray[], sig: NodeJS.Signals, cgroupBase: string | null): void {
  const marked = new Set(strays.map((s) => s.pid));
  const own = stat("/proc", process.pid)?.pgid; // never this agent's own group
  for (const seg of new Set(strays.map((s) => s.segmentId))) {
    // A cgroup named after the segment that holds one of its marked processes is that job's (setsid'd ones too).
    const cg = cgroupBase ? join(cgroupBase, seg) : null;
    const pids = strays.filter((s) => s.segmentId === seg).map((s) => s.pid);
    if (cg && JobCgroups.pids(cg).some((p) => pids.includes(p))) JobCgroups.signal(cg, sig);
  }
  const done = new Set<number>();
  for (const s of strays) {
    const target = marked.has(s.pgid) && s.pgid !== own ? -s.pgid : s.pid;
    if (done.has(target)) continue;
    done.add(target);
    try {
      process.kill(target, sig);
    } catch {
      // already gone
    }
  }
}

/**
 * Stop every stray (see findStrays): SIGTERM, SIGKILL to what is left after `graceMs`, one log line
 * per process group. Resolves once none is left (or 5 s after the SIGKILL); returns how many groups.
 */
export async function stopStrays(opts: {
  nodeName: string;
  dir: string;
  owned: Set<string>;
  graceMs: number;
  cgroupBase: string | null;
  log: (line: string) => void;
  procRoot?: string;
  /** Why they are stopped, for each group's log line (default: unknown to this agent). */
  why?: string;
  /** Called with what was found before the first signal (the fence watch marks the runs fenced). */
  beforeSignal?: (strays: Stray[]) => void;
}): Promise<number> {
  const find = () => findStrays(opts.nodeName, opts.dir, opts.owned, opts.procRoot);
  const strays = find();
  if (strays.length === 0) return 0;
  const groups = new Map<number, Stray[]>();
  for (const s of strays) groups.set(s.pgid, [...(groups.get(s.pgid) ?? []), s]);
  const why =
    opts.why ?? `launched on this node from ${opts.dir} but unknown to this agent (its state was lost or replaced while it ran)`;
  for (const [pgid, members] of groups) {
    const s = members[0]!;
    opts.log(
      `stopping process group ${pgid} (pids ${members.map((m) => m.pid).join(",")}): job ${s.jobId}, segment ${s.segmentId}, ${why}; SIGTERM, SIGKILL after ${Math.round(opts.graceMs / 1000)} s, so it cannot run twice`,
    );
  }
  opts.beforeSignal?.(strays);
  signalStrays(strays, "SIGTERM", opts.cgroupBase);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + opts.graceMs;
  while (find().length > 0 && Date.now() < deadline) await sleep(100);
  // Found again, not reused: a pid that ended during the grace is never signalled.
  const left = find();
  if (left.length > 0) signalStrays(left, "SIGKILL", opts.cgroupBase);
  // Gone means gone, not only unmarked: a process on its way out has lost its environment (and so its
  // marker) before it stops running. Wait for the signalled groups and processes themselves.
  // Groups signalled whole are those whose leader is a stray (signalStrays); the rest, process by process.
  const pids = new Set(strays.map((x) => x.pid));
  const wholeGroups = new Set([...groups.keys()].filter((g) => pids.has(g)));
  const gone = () => !anyLive(opts.procRoot ?? "/proc", wholeGroups, pids);
  while (!(find().length === 0 && gone()) && Date.now() < deadline + 5000) await sleep(50);
  return groups.size;
}

/** Is any process of these groups, or with one of these pids, still running (a zombie is not)? */
function anyLive(procRoot: string, pgids: Set<number>, pids: Set<number>): boolean {
  let all: string[];
  try {
    all = readdirSync(procRoot).filter((n) => /^\d+$/.test(n));
  } catch {
    return false;
  }
  for (const name of all) {
    const pid = Number(name);
    if (pid === process.pid) continue;
    const st = stat(procRoot, pid);
    if (st && !st.zombie && (pids.has(pid) || pgids.has(st.pgid))) return true;
  }
  return false;
}
