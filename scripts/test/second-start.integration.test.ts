// A second `npm start` in a checkout whose platform runs (another terminal, another PORT or DATABASE_URL)
// took the running supervisor for a leftover of a killed start and stopped the whole platform. It must
// refuse, saying so, and leave the running one alone; a dead supervisor's services are still cleaned up.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const runDir = mkdtempSync(join(tmpdir(), "tranche-second-start-"));
const children: ChildProcess[] = [];
let busy: Server | undefined;

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await new Promise<void>((r) => (busy ? busy.close(() => r()) : r()));
  rmSync(runDir, { recursive: true, force: true });
});

/** A process whose command line names the checkout, as the supervisor's does. */
function standIn(): ChildProcess {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", root], { stdio: "ignore" });
  children.push(child);
  return child;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function platform(port: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "platform.ts")], {
      cwd: root,
      env: { ...process.env, TRANCHE_RUN_DIR: runDir, PORT: String(port), TRANCHE_DEMO: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe("npm start while a start of the same checkout runs", () => {
  it("refuses, naming the running one, and stops nothing of it", async () => {
    // Its web port is taken, so a start that went on would stop there, before any database.
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(0, "127.0.0.1", r));
    const port = (busy.address() as { port: number }).port;
    const supervisor = standIn();
    const web = standIn();
    writeFileSync(join(runDir, "platform.json"), JSON.stringify({ supervisor: supervisor.pid, services: { web: web.pid } }));

    const r = await platform(port);

    expect(r.out).toContain(`Tranche is already running from this checkout (npm start, pid ${supervisor.pid})`);
    expect(r.out).not.toContain("stopping");
    expect(r.code).toBe(1);
    expect(alive(supervisor.pid!)).toBe(true);
    expect(alive(web.pid!)).toBe(true);
  }, 120_000);

  it("still stops the services a killed start left behind", async () => {
    const web = standIn();
    writeFileSync(join(runDir, "platform.json"), JSON.stringify({ supervisor: 2 ** 22 + 1, services: { web: web.pid } }));
    const port = (busy!.address() as { port: number }).port;

    const r = await platform(port);

    expect(r.out).toContain("stopping 1 process(es) left running by an earlier start");
    expect(r.code).toBe(1);
    await expect.poll(() => alive(web.pid!), { timeout: 20_000 }).toBe(false);
  }, 120_000);
});
