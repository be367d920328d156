import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = "/sys/fs/cgroup";

/**
 * One cgroup v2 per job, where the unified hierarchy is mounted at /sys/fs/cgroup and writable (Linux,
 * an agent running as root): every process the job starts — even one that left its process group with
 * setsid — is found there and ended with it. Elsewhere (cgroup v1, containers, macOS) `available` is
 * false and the runner relies on process groups alone. Every call is best effort: a cgroup failure must
 * not fail the job.
 */
export class JobCgroups {
  readonly base: string | null;

  constructor(nodeName: string, root = ROOT) {
    let base: string | null = null;
    try {
      if (existsSync(join(root, "cgroup.controllers"))) {
        const dir = join(root, "tranche", nodeName);
        mkdirSync(dir, { recursive: true });
        base = dir;
      }
    } catch {
      base = null; // read-only or not ours
    }
    this.base = base;
  }

  get available(): boolean {
    return this.base !== null;
  }

  /** Make the job's cgroup and move `pid` into it; returns its path, or null. */
  adopt(segmentId: string, pid: number): string | null {
    if (!this.base) return null;
    try {
      const dir = join(this.base, segmentId);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "cgroup.procs"), String(pid));
      return dir;
    } catch {
      return null;
    }
  }

  static pids(dir: string): number[] {
    try {
      return readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /** Signal every process in the job's cgroup (SIGKILL through cgroup.kill where the kernel has it). */
  static signal(dir: string, sig: NodeJS.Signals): void {
    if (sig === "SIGKILL" && existsSync(join(dir, "cgroup.kill"))) {
      try {
        writeFileSync(join(dir, "cgroup.kill"), "1");
        return;
      } catch {
        // fall through to one by one
      }
    }
    for (const pid of JobCgroups.pids(dir)) {
      try {
        process.kill(pid, sig);
      } catch {
        // gone
      }
    }
  }

  /** Remove an empty job cgroup. */
  static remove(dir: string): void {
    try {
      rmdirSync(dir);
    } catch {
      // still busy or already gone
    }
  }
}

/**
 * The agent's line at start when jobs get no cgroup of their own though the operator did not turn them
 * off (cgroup v1, a container, no root): the runner then follows a job by its process group alone, so a
 * process that leaves the group (setsid) and clears its environment outlives its job unseen. Said once,
 * so an operator who expected cgroups learns it from the log, not from a stray process.
 */
export function cgroupNotice(requested: boolean, available: boolean): string | null {
  if (!requested || available) return null;
  return "jobs get no cgroup of their own (cgroup v2 is not mounted writable at /sys/fs/cgroup): a job's processes are followed by their process group alone, so one that leaves it with setsid can outlive its job; run the agent as root on a host with cgroup v2 to close that";
}
