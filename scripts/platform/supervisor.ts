import { spawn, type ChildProcess } from "node:child_process";
import type { Service } from "./services";

/** Lines a quiet service still prints: they report a problem. */
export const PROBLEM = /error|fail|cannot|could not|unreachable|refused|denied|stopp/i;

/** Starts services as child processes, prefixes their output, and stops them in reverse order. */
export class Supervisor {
  private readonly running: { name: string; child: ChildProcess }[] = [];
  private stopping = false;

  async start(service: Service, onExit: (name: string, code: number | string) => void): Promise<void> {
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
    child.on("exit", (code, signal) => {
      if (!this.stopping) onExit(service.name, code ?? signal ?? "unknown");
    });
    this.running.push({ name: service.name, child });
    if (service.ready) {
      const exited = new Promise<never>((_, reject) =>
        child.once("exit", (c) => reject(new Error(`${service.name} exited (${c}) before it was ready`))),
      );
      await Promise.race([service.ready(), exited]);
    }
  }

  pids(): Record<string, number> {
    return Object.fromEntries(this.running.map((r) => [r.name, r.child.pid ?? 0]));
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const { child } of [...this.running].reverse()) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const gone = new Promise<void>((r) => child.once("exit", () => r()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await gone;
      clearTimeout(timer);
    }
  }
}
