// A lab's first start, from an empty database (no demo world, TRANCHE_DEMO=0): the first admin from the
// command line, then everything through the web app's Admin section, a real node agent enrolling with
// the token it issued, and a researcher's job running to COMPLETED with its log. Its own stack (second
// embedded Postgres, web app, worker) runs beside the demo stack of the other journeys.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { e2ePorts } from "./support/stack-options";

const ROOT = join(import.meta.dirname, "..");
// Its ports follow E2E_PORT and E2E_PG_PORT (stack-options.ts), and the stack moves to free ones, so it
// never takes another stack's: the address it serves on is the one its READY line gives.
const { firstStartWeb, firstStartPg } = e2ePorts();
let URL = "";
const ADMIN = { email: "root@lab.example", name: "Root Admin", password: "root admin password" };
let stack: ChildProcess | null = null;
let agent: ChildProcess | null = null;
let databaseUrl = "";
const stateDir = mkdtempSync(join(tmpdir(), "tranche-e2e-agent-"));

test.beforeAll(async () => {
  test.setTimeout(150_000);
  stack = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "e2e/support/stack.ts"),
      "--empty",
      "--worker",
      "--free-port",
      "--port",
      String(firstStartWeb),
      "--pg-port",
      String(firstStartPg),
      "--data",
      ".data/e2e-empty-postgres",
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } },
  );
  databaseUrl = await new Promise<string>((resolve, reject) => {
    let buf = "";
    stack!.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\{.*\})/.exec(buf);
      if (!m) return;
      const ready = JSON.parse(m[1]!) as { url: string; databaseUrl: string };
      URL = ready.url;
      resolve(ready.databaseUrl);
    });
    stack!.once("exit", (code) => reject(new Error(`the empty stack exited with ${code}`)));
  });
});

test.afterAll(async () => {
  for (const p of [agent, stack]) {
    if (p && p.exitCode === null) {
      p.kill("SIGTERM");
      await new Promise((r) => p.once("exit", r));
    }
  }
  rmSync(stateDir, { recursive: true, force: true });
});

function run(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    let stdout = "";
    let stderr = "";
    c.stdout.on("data", (d) => (stdout += d));
    c.stderr.on("data", (d) => (stderr += d));
    c.on("exit", (code) => resolve({ code, stdout, stderr }));
    c.stdin.end(stdin);
  });
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${URL}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

async function addChild(page: Page, parent: string, name: string) {
  await page.getByRole("button", { name: `Select ${parent}`, exact: true }).click();
  await page.getByLabel(`New budget under ${parent}`, { exact: true }).fill(name);
  await page.getByRole("button", { name: "Add a budget here" }).click();
  await expect(page.locator(".alert.ok")).toContainText(`Created ${parent}/${name}.`);
}

async function setShare(page: Page, path: string, share: string) {
  await page.getByRole("button", { name: `Select ${path}`, exact: true }).click();
  await page.getByLabel("Share of the parent").fill(share);
  await page.getByRole("button", { name: "Set share" }).click();
  await expect(page.locator(".alert.ok")).toContainText(`${path} now has ${share}`);
}

async function createUser(page: Page, email: string, name: string, role: string): Promise<string> {
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Create user" }).click();
  const link = page.getByTestId("set-password-link");
  await expect(link).toContainText("/set-password?token=");
  return (await link.textContent())!.trim();
}

test("a lab starts from an empty database: first admin, tree, people, a host, a researcher's job to COMPLETED", async ({
  browser,
}) => {
  test.setTimeout(360_000);
  const created = await run(
    ["scripts/admin.ts", "create-admin", "--email", ADMIN.email, "--name", ADMIN.name],
    `${ADMIN.password}\n`,
  );
  expect(created.stderr).toBe("");
  expect(created.stdout).toMatch(/API token .*trn_/);

  const page = await browser.newPage();
  // No demo world: its published password signs nobody in.
  await signIn(page, "admin@tranche.example", "tranche-demo");
  await expect(page.locator(".alert.bad")).toContainText("do not match");
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page.getByTestId("who-name")).toHaveText(ADMIN.name);

  await page.goto(`${URL}/admin/clusters`);
  await page.getByLabel("Cluster name").fill("lab1");
  await page.getByLabel("GPU type").fill("H100");
  await page.getByRole("button", { name: "Create cluster" }).click();
  await expect(page.locator(".alert.ok")).toContainText("Created cluster lab1.");
  // The debug lane starts at the scheduler's defaults; the admin raises one setting, and only it changes.
  await expect(page.getByLabel("Debug GPUs per user")).toHaveValue("8");
  await page.getByLabel("Debug GPUs per user").fill("16");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.locator(".alert.ok")).toContainText("a user may hold 16 GPUs in the lane");
  const lab1 = (
    (await (await page.request.get(`${URL}/api/v1/clusters`)).json()) as { clusters: { name: string; policy: unknown }[] }
  ).clusters.find((c) => c.name === "lab1");
  expect(lab1?.policy).toMatchObject({ debugReservePercent: 2, debugMaxGpusPerUser: 16, debugVictimMaxGpuHours: 4 });

  await page.goto(`${URL}/admin`);
  await page.getByLabel("Root name").fill("lab");
  await page.getByRole("button", { name: "Create the root" }).click();
  await expect(page.locator(".alert.ok")).toContainText("Created the root lab.");
  await addChild(page, "lab", "nlp");
  await addChild(page, "lab", "vision");
  await addChild(page, "lab/nlp", "pretrain");
  await addChild(page, "lab/nlp", "eval");
  await addChild(page, "lab/vision", "video");
  await setShare(page, "lab/nlp", "60%");
  await setShare(page, "lab/vision", "40%");
  await setShare(page, "lab/nlp/pretrain", "70%");
  await setShare(page, "lab/nlp/eval", "30%");
  await setShare(page, "lab/vision/video", "100%");

  await page.goto(`${URL}/admin/users`);
  const riaLink = await createUser(page, "ria@lab.example", "Ria Researcher", "RESEARCHER");
  await createUser(page, "max@lab.example", "Max Manager", "MANAGER");

  await page.goto(`${URL}/admin`);
  await page.getByRole("button", { name: "Select lab/nlp/pretrain", exact: true }).click();
  await page.getByLabel("Member e-mail").fill("ria@lab.example");
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.locator(".alert.ok")).toContainText("ria@lab.example may now charge lab/nlp/pretrain.");
  await page.getByRole("button", { name: "Select lab/nlp", exact: true }).click();
  await page.getByLabel("Manager e-mail").fill("max@lab.example");
  await page.getByRole("button", { name: "Add manager" }).click();
  await expect(page.locator(".alert.ok")).toContainText("max@lab.example now manages lab/nlp.");

  await page.goto(`${URL}/admin/clusters`);
  await page.getByRole("button", { name: "Issue enrollment token" }).click();
  const token = (await page.getByTestId("enrollment-token").textContent())!.trim();
  expect(token).toMatch(/^tet_/);
  agent = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "apps/node-agent/src/main.ts",
      "--server",
      URL,
      "--fake-gpus",
      "8",
      "--enrollment-token",
      token,
      "--state-dir",
      stateDir,
      "--node-name",
      "lab1-host-0",
      // The test's fake-GPU job may run as root where the suite does (CI); a lab's host uses --job-uid-range.
      ...(process.getuid?.() === 0 ? ["--allow-root-jobs"] : []),
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  await expect
    .poll(
      async () => {
        // A reused keep-alive socket the server just closed (ECONNRESET, seen once in CI) is another poll,
        // not a failure: a server that stays down still fails the poll at its timeout.
        const res = await page.request.get(`${URL}/api/v1/clusters`).catch(() => null);
        if (!res) return 0;
        const r = (await res.json()) as { clusters: { name: string; readyGpus: number }[] };
        return r.clusters.find((c) => c.name === "lab1")?.readyGpus ?? 0;
      },
      { timeout: 60_000 },
    )
    .toBe(8);
  await page.reload();
  await expect(page.getByRole("table", { name: "Enrollment tokens" })).toContainText("lab1-host-0");

  const ria = await browser.newPage();
  await ria.goto(riaLink);
  await ria.getByLabel("New password").fill("ria's own password");
  await ria.getByLabel("The same again").fill("ria's own password");
  await ria.getByRole("button", { name: "Set password" }).click();
  await expect(ria.locator(".alert.ok")).toContainText("You can now sign in as ria@lab.example.");
  await signIn(ria, "ria@lab.example", "ria's own password");
  await expect(ria.getByTestId("who-name")).toHaveText("Ria Researcher");
  await ria.goto(`${URL}/submit`);
  await ria.getByLabel("Cluster", { exact: true }).selectOption("lab1");
  await ria.getByLabel("Budget", { exact: true }).selectOption("lab/nlp/pretrain");
  await ria.getByLabel("GPUs", { exact: true }).fill("8");
  await ria.getByLabel("Minimum runtime (protected)").fill("10m");
  await ria.getByLabel("Command", { exact: true }).fill("echo hello-from-the-first-job && sleep 2");
  await ria.getByRole("button", { name: "Submit job" }).click();
  await expect(ria).toHaveURL(/\/jobs\/\d+\?submitted=1/);
  const id = Number(/\/jobs\/(\d+)/.exec(ria.url())![1]);
  await expect
    .poll(
      async () => ((await (await ria.request.get(`${URL}/api/v1/jobs/${id}`)).json()) as { job: { state: string } }).job.state,
      { timeout: 90_000 },
    )
    .toBe("COMPLETED");
  await ria.reload();
  await expect(ria.getByTestId("job-logs")).toContainText("hello-from-the-first-job", { timeout: 15_000 });

  await page.goto(`${URL}/admin/audit`);
  await expect(page.getByRole("table", { name: "Audit log" })).toContainText("issued an enrollment token");

  // Disabling Ria, after its question, ends her session at once (not after the session cookie's one-minute cache).
  await page.goto(`${URL}/admin/users`);
  page.once("dialog", (d) => void d.accept());
  await page
    .getByRole("row", { name: /ria@lab\.example/ })
    .getByRole("button", { name: "Disable" })
    .click();
  await expect(page.locator(".alert.ok")).toContainText(
    "Ria Researcher is disabled: their sign-ins and API tokens no longer work.",
  );
  await ria.goto(`${URL}/jobs`);
  await expect(ria).toHaveURL(/\/login\?next=%2Fjobs$/);

  // The host is cut off, after its question: its row says so at once, without a reload.
  await page.goto(`${URL}/admin/clusters`);
  const host = page.getByRole("table", { name: "Hosts" }).getByRole("row", { name: /lab1-host-0/ });
  await expect(host).toContainText("Ready");
  page.once("dialog", (d) => void d.accept());
  await host.getByRole("button", { name: "Revoke credential of lab1-host-0" }).click();
  await expect(page.locator(".alert.ok")).toContainText("Revoked the credential of lab1-host-0");
  await expect(host).toContainText("Cordoned");
  // Nothing is left to revoke: no second button that would only answer "has no credential to revoke".
  await expect(host).toContainText("Credential revoked");
  await expect(host.getByRole("button", { name: "Revoke credential of lab1-host-0" })).toHaveCount(0);
});
