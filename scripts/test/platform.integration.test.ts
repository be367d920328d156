import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const runDir = mkdtempSync(join(tmpdir(), "tranche-run-"));

function startPlatform(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "platform.ts")], {
      cwd: root,
      env: { ...process.env, TRANCHE_RUN_DIR: runDir, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("npm start with bad configuration", () => {
  afterAll(() => rmSync(runDir, { recursive: true, force: true }));

  it("ends with one specific line when the web port is already in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await startPlatform({ PORT: String(port), DATABASE_URL: "postgresql://x:y@127.0.0.1:1/z" });
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `tranche: Port ${port} is already in use on 127.0.0.1; stop what uses it or set PORT to another port.`,
      );
    } finally {
      blocker.close();
    }
  });

  it("ends with one specific line when DATABASE_URL cannot be reached", async () => {
    const r = await startPlatform({ PORT: String(await freePort()), DATABASE_URL: "postgresql://x:y@127.0.0.1:1/z" });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^tranche: Cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\): ECONNREFUSED/);
  });

  it("refuses a TRANCHE_DEMO that is neither 0 nor 1", async () => {
    const r = await startPlatform({ TRANCHE_DEMO: "yes", DATABASE_URL: "postgresql://x:y@127.0.0.1:1/z" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("tranche: TRANCHE_DEMO must be 0 (your own lab) or 1 (the demo), got 'yes'.");
  });

  it("refuses a malformed TRANCHE_TRUSTED_PROXIES at start with one line naming the entry", async () => {
    const r = await startPlatform({
      TRANCHE_TRUSTED_PROXIES: "10.0.0.1, 10.0.0.0/33",
      PORT: String(await freePort()),
      DATABASE_URL: "postgresql://x:y@127.0.0.1:1/z",
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "tranche: TRANCHE_TRUSTED_PROXIES: '10.0.0.0/33' is not an address or an IPv4 range like 10.0.0.0/8 (IPv6 entries must be single addresses)",
    );
  });

  it("refuses a PORT that is not a port number", async () => {
    const r = await startPlatform({ PORT: "eighty", DATABASE_URL: "postgresql://x:y@127.0.0.1:1/z" });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("tranche: PORT must be a port number, got 'eighty'.");
  });
});
