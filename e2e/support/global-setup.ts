import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { e2ePorts } from "./stack-options";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const PID_FILE = join(ROOT, ".data", "e2e-stack.pid");
export const { web: E2E_PORT, pg: E2E_PG_PORT } = e2ePorts();

/**
 * Start the e2e stack (fresh embedded Postgres on E2E_PG_PORT, 54349, or the next free port; demo world;
 * `next start` on 127.0.0.1:E2E_PORT, 3100) as
 * a child process and wait for it to say READY. globalTeardown stops it by the pid we record.
 */
export default async function globalSetup(): Promise<void> {
  // E2E_EXTERNAL=1: a stack is already running (node --import tsx e2e/support/stack.ts); use it as is.
  if (process.env.E2E_EXTERNAL === "1") return;
  if (!existsSync(join(ROOT, "apps", "web", ".next", "BUILD_ID"))) {
    throw new Error("e2e runs against the built web app: run `npx turbo run build` first.");
  }
  mkdirSync(join(ROOT, ".data"), { recursive: true });
  const stackArgs = [
    "--port",
    String(E2E_PORT),
    "--pg-port",
    String(E2E_PG_PORT),
    "--data",
    ".data/e2e-postgres",
    ...(process.env.E2E_WORKER === "0" ? [] : ["--worker"]),
  ];
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "e2e", "support", "stack.ts"), ...stackArgs], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  writeFileSync(PID_FILE, String(child.pid));
  await new Promise<void>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => reject(new Error("the e2e stack did not become ready within 120 s")), 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\{.*\})/.exec(buf);
      if (m) {
        clearTimeout(timer);
        process.env.E2E_DATABASE_URL = (JSON.parse(m[1]!) as { databaseUrl: string }).databaseUrl;
        process.env.E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the e2e stack exited with ${code} before it was ready (see the [stack] lines above)`));
    });
  });
  child.stdout!.resume();
  child.unref();
}
