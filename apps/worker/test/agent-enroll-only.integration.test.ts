import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";
import { hashSecret, issueEnrollmentTokens } from "@tranche/domain/runtime";
import { makeWorld, ROOT, startGateway, type World } from "./harness";

/** The real agent process, run to its end (asynchronously: the gateway answers from this process). */
function runAgent(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "apps/node-agent/src/main.ts"), ...args], {
      cwd: ROOT,
      env: { ...process.env, TRANCHE_ENROLLMENT_TOKEN: "", TRANCHE_ENROLLMENT_TOKEN_FILE: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("node agent --enroll-only with the token in TRANCHE_ENROLLMENT_TOKEN", () => {
  let db: TestDatabase;
  let world: World;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  const stateDir = mkdtempSync(join(tmpdir(), "tranche-enroll-"));

  beforeAll(async () => {
    db = await createTestDatabase("enrollonly");
    world = await makeWorld(db.prisma, { nodes: 0 });
    gateway = await startGateway(db.prisma);
  });
  afterAll(async () => {
    await gateway?.close();
    await db?.drop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const args = (node: string) => [
    "--server",
    gateway.url,
    "--state-dir",
    stateDir,
    "--fake-gpus",
    "8",
    "--node-name",
    node,
    "--enroll-only",
  ];

  it("enrolls, stores the credential (mode 600) and exits 0 without heartbeating", async () => {
    const token = (await issueEnrollmentTokens(db.prisma, world.clusterId, [null]))[0]!.token;
    const r = await runAgent(args("host-a"), { TRANCHE_ENROLLMENT_TOKEN: token });
    expect(r.out).toContain("enrolled in cluster c1 as node host-a");
    expect(r.code).toBe(0);
    const file = join(stateDir, "host-a", "credential");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const node = await db.prisma.node.findUniqueOrThrow({ where: { name: "host-a" } });
    expect(node.agentCredentialHash).toBe(hashSecret(readFileSync(file, "utf8").trim()));
    expect(node.lastHeartbeatAt).toBeNull();
    expect(node.state).toBe("DOWN");
  });

  it("run again, it keeps the stored credential and needs no token", async () => {
    const before = readFileSync(join(stateDir, "host-a", "credential"), "utf8");
    const r = await runAgent(args("host-a"), {});
    expect(r.code).toBe(0);
    expect(r.out).toContain("already enrolled");
    expect(readFileSync(join(stateDir, "host-a", "credential"), "utf8")).toBe(before);
  });

  it("exits 1 naming the node when the token was already used, and creates nothing", async () => {
    const token = (await issueEnrollmentTokens(db.prisma, world.clusterId, [null]))[0]!.token;
    expect((await runAgent(args("host-b"), { TRANCHE_ENROLLMENT_TOKEN: token })).code).toBe(0);
    const r = await runAgent(args("host-c"), { TRANCHE_ENROLLMENT_TOKEN: token });
    expect(r.code).toBe(1);
    expect(r.out).toContain("enrollment refused (HTTP 401) INVALID_ENROLLMENT_TOKEN");
    expect(r.out).toContain("tranche-agent: not enrolled: host-c");
    expect(await db.prisma.node.findUnique({ where: { name: "host-c" } })).toBeNull();
    expect(existsSync(join(stateDir, "host-c", "credential"))).toBe(false);
  });

  it("exits 1 when it has neither a credential nor a token", async () => {
    const r = await runAgent(args("host-d"), {});
    expect(r.code).toBe(1);
    expect(r.out).toContain("no node credential and no enrollment token");
  });
});
