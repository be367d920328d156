// `npm run admin -- create-admin`: the real script against a real (empty, migrated) test database; the
// token it prints then authenticates a REST call, and the password signs in through the auth library.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "better-auth/crypto";
import { handleRest } from "@tranche/api/rest";
import { createTestDatabase, type TestDatabase } from "@tranche/db/testing";

const root = join(import.meta.dirname, "..", "..");
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("admin_script");
});
afterAll(async () => {
  await db?.drop();
});

function createAdmin(
  args: string[],
  stdin: string,
  command = "create-admin",
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "scripts", "admin.ts"), command, ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe("npm run admin -- create-admin", () => {
  it("refuses a short password and a missing --name, creating nobody", async () => {
    const short = await createAdmin(["--email", "root@lab.example", "--name", "Root"], "short\n");
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 8 characters");
    const noName = await createAdmin(["--email", "root@lab.example"], "long enough password\n");
    expect(noName.code).toBe(1);
    expect(noName.stderr).toContain("--name is required");
    expect(await db.prisma.user.count()).toBe(0);
  });

  it("refuses a --name over 100 characters or with control characters, naming it, creating nobody", async () => {
    const long = await createAdmin(["--email", "root@lab.example", "--name", "N".repeat(101)], "long enough password\n");
    expect(long.code).toBe(1);
    expect(long.stderr).toContain("--name is longer than 100 characters");
    const escaped = await createAdmin(["--email", "root@lab.example", "--name", "Root \u001b[2J"], "long enough password\n");
    expect(escaped.code).toBe(1);
    expect(escaped.stderr).toContain("--name must not contain control characters");
    expect(await db.prisma.user.count()).toBe(0);
  });

  it("creates an admin whose printed token authenticates REST and whose password is stored hashed", async () => {
    const r = await createAdmin(["--email", "Root@Lab.example", "--name", "Root Admin"], "a long password\n");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("a long password");
    const token = /trn_[A-Za-z0-9_-]+/.exec(r.stdout)?.[0];
    expect(token).toBeDefined();
    const res = await handleRest(
      new Request("http://127.0.0.1/api/v1/me", { headers: { authorization: `Bearer ${token}` } }),
      "/me",
      { prisma: db.prisma },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { email: string; role: string } }).user).toMatchObject({
      email: "root@lab.example",
      role: "ADMIN",
    });
    const account = await db.prisma.account.findFirstOrThrow({
      where: { providerId: "credential", user: { email: "root@lab.example" } },
    });
    expect(account.password).not.toContain("a long password");
    expect(await verifyPassword({ hash: account.password!, password: "a long password" })).toBe(true);
    const audit = await db.prisma.auditLog.findMany({ where: { action: "user.create-admin" } });
    expect(audit).toHaveLength(1);
  });

  it("refuses an e-mail that already has a user", async () => {
    const r = await createAdmin(["--email", "root@lab.example", "--name", "Again"], "another long password\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("already exists");
    expect(await db.prisma.user.count()).toBe(1);
  });
});

describe("npm run admin -- create-token", () => {
  it("prints an API token for an existing user once, which authenticates REST as that user", async () => {
    const r = await createAdmin(["--email", "ROOT@lab.example", "--name", "laptop"], "", "create-token");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const token = /trn_[A-Za-z0-9_-]+/.exec(r.stdout)?.[0];
    expect(r.stdout).toContain('API token "laptop" for Root Admin <root@lab.example>');
    expect(r.stdout).toMatch(/it expires (\d{4}-\d\d-\d\d \d\d:\d\d UTC|never)\):/);
    const res = await handleRest(
      new Request("http://127.0.0.1/api/v1/me", { headers: { authorization: `Bearer ${token}` } }),
      "/me",
      { prisma: db.prisma },
    );
    expect(res.status).toBe(200);
    expect(await db.prisma.apiToken.count({ where: { name: "laptop" } })).toBe(1);
    // The audit log credits the server's command, for the user, not the user (who did nothing).
    const t = await db.prisma.apiToken.findFirstOrThrow({ where: { name: "laptop" } });
    const entry = await db.prisma.auditLog.findFirstOrThrow({ where: { action: "token.create", targetId: t.id } });
    expect(entry.actorId).toBeNull();
    expect(entry.details).toEqual({ name: "laptop", for: "root@lab.example", madeBy: "npm run admin -- create-token" });
  });

  it("refuses an unknown user and a disabled one, creating no token", async () => {
    const before = await db.prisma.apiToken.count();
    const unknown = await createAdmin(["--email", "nobody@lab.example"], "", "create-token");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("there is no user nobody@lab.example");
    await db.prisma.user.update({ where: { email: "root@lab.example" }, data: { disabledAt: new Date() } });
    const disabled = await createAdmin(["--email", "root@lab.example"], "", "create-token");
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain("root@lab.example is disabled");
    expect(await db.prisma.apiToken.count()).toBe(before);
  });
});
