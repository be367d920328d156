import { spawn, type ChildProcess } from "node:child_process";
import type { Service } from "./services";

/** Lines a quiet service still prints: they report a problem. */
export const PROBLEM = /error|fail|cannot|could not|unreachable|refused|denied|stopp/i;

/** Seconds before the n-th restart in a row (1, 2, 4, ... 30). */
export const restartDelaySec = (n: number): number => Math.min(30, 2 ** Math.max(0, n - 1));
/**
 * A service that ran this long since its last start was healthy: its next death counts as the first in
 * a row again (1 s), so separate faults each get the quick restart. Only a crash loop (deaths within
 * this time of each start) backs off.
 */
export const HEALTHY_MS = 10_000;

interface Running {
  name: string;
  child: ChildProcess;
  service: Service;
  startedAt: number;
  restarts: number;
  timer: NodeJS.Timeout | null;
}

/**
 * Starts services as child processes, prefixes their output, and stops them in reverse order. A service
 * that dies once it was ready is started again after a backoff, with one line saying so: one service's
 * crash never stops the platform (issue 15). A service that dies before it is ready fails the start.
 */
export class Supervisor {
  private readonly running: Running[] = [];
  private stopping = false;

  constructor(
    private readonly say: (line: string) => void = (l) => console.log(l),
    /** Called after a restart with the new pids (the run file). */
    private readonly onRestart: (pids: Record<string, number>) => void = () => {},
    private readonly healthyMs = HEALTHY_MS,
  ) {}

  async start(service: Service): Promise<void> {
    const entry: Running = {
      name: service.name,
      child: this.spawn(service),
      service,
      startedAt: Date.now(),
      restarts: 0,
      timer: null,
    };
    this.running.push(entry);
    const child = entry.child;
    if (service.ready) {
      const exited = new Promise<never>((_, reject) =>
        child.once("exit", (c) => reject(new Error(`${service.name} exited (${c}) before it was ready`))),
      );
      await Promise.race([service.ready(), exited]);
    }
    this.watch(entry);
  }

  private spawn(service: Service): ChildProcess {
    const child = spawn(service.command, service.args, {
      env: { ...process.env, ...service.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const prefix = (chunk: Buffer) =>
      chunk
        .toString()
        .split("\n")
        .filter((l) => l.trim() && (!service.quiet || PROBLEM.test(l)))
        .forEach((l) => console.log(`[${service.name}] ${l}`));
    child.stdout?.on("data", prefix);
    child.stderr?.on("data", prefix);
    child.on("error", (e) => this.say(`• ${service.name} could not be started: ${e.message}`));
    return child;
  }

  private watch(entry: Running): void {
    entry.child.once("exit", (code, signal) => {
      if (this.stopping) return;
      if (Date.now() - entry.startedAt >= this.healthyMs) entry.restarts = 0;
      entry.restarts++;
      const delay = restartDelaySec(entry.restarts);
      this.say(
        `• ${entry.name} exited (${code ?? signal ?? "unknown"}); restarting it in ${delay} s${entry.restarts > 1 ? ` (restart ${entry.restarts} in a row)` : ""}`,
      );
      entry.timer = setTimeout(() => {
        entry.timer = null;
        if (this.stopping) return;
        entry.child = this.spawn(entry.service);
        entry.startedAt = Date.now();
        this.watch(entry);
        this.onRestart(this.pids());
      }, delay * 1000);
    });
  }

  pids(): Record<string, number> {
    return Object.fromEntries(this.running.map((r) => [r.name, r.child.pid ?? 0]));
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const entry of [...this.running].reverse()) {
      if (entry.timer) clearTimeout(entry.timer);
      const { child } = entry;
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const gone = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await gone;
      clearTimeout(timer);
    }
  }
}
