import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { PASSWORD, USERS, sameOrigin, signIn, submitAsAda } from "./support/helpers";
import { cancelSeededJobs, seedPendingJobs } from "./support/seed-load";

const run = promisify(execFile);

async function myJobCount(request: APIRequestContext): Promise<number> {
  const res = await request.get("/api/v1/jobs?limit=1000");
  expect(res.status()).toBe(200);
  return ((await res.json()) as { jobs: unknown[] }).jobs.length;
}

async function fillForm(page: Page, f: { cluster: string; gpus: string; minRuntime: string; command: string }) {
  await page.getByLabel("Cluster", { exact: true }).selectOption(f.cluster);
  await page.getByLabel("Budget", { exact: true }).selectOption("lab/language/pretraining");
  await page.getByLabel("GPUs", { exact: true }).fill(f.gpus);
  await page.getByLabel("Minimum runtime (protected)").fill(f.minRuntime);
  await page.getByLabel("Command", { exact: true }).fill(f.command);
}

test("a researcher submits a job, sees it in the queue with the scheduler's reason, then running", async ({ page, browser }) => {
  // An admin fills b200 with a protected job, so Ada's b200 job has to wait for a reason.
  const admin = await browser.newPage();
  await signIn(admin, "admin");
  const blocker = await admin.request.post("/api/v1/jobs", {
    headers: sameOrigin(admin),
    data: {
      cluster: "b200",
      budget: "lab/vision/video",
      gpus: 88,
      minRuntime: "2h",
      resumable: true,
      priority: 0,
      command: "sleep 7200",
      env: {},
      name: "blocker",
    },
  });
  expect(blocker.status()).toBe(201);
  const blockerId = ((await blocker.json()) as { job: { id: number } }).job.id;
  await expect
    .poll(
      async () => ((await (await admin.request.get(`/api/v1/jobs/${blockerId}`)).json()) as { job: { state: string } }).job.state,
      { timeout: 20_000 },
    )
    .toBe("RUNNING");

  await signIn(page, "ada");
  await page.goto("/submit");
  // One GPU to begin with: it fits a node of any size (8 was a whole cluster of two 4-GPU nodes).
  await expect(page.getByLabel("GPUs", { exact: true })).toHaveValue("1");
  await fillForm(page, { cluster: "b200", gpus: "8", minRuntime: "2h", command: "torchrun train.py --resume" });
  await expect(page.getByTestId("contract")).toContainText("Protected for 2 h after each start, then interruptible.");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page).toHaveURL(/\/jobs\/\d+\?submitted=1/);
  const id = Number(/\/jobs\/(\d+)/.exec(page.url())![1]);
  // The worker's explanation arrives within a cycle: GPUs held by protected jobs (SPEC §5 CONTRACTS).
  await expect(page.getByTestId("job-reason")).toContainText("waiting for protected jobs", { timeout: 15_000 });
  await page.goto("/queue/b200");
  const row = page.getByTestId(`pending-${id}`);
  await expect(row).toBeVisible();
  await expect(row.locator("[data-code=CONTRACTS]")).toHaveText("waiting for protected jobs");
  await expect(row).toContainText("protected jobs");

  // Asked too much: Ada edits the waiting job in place, and it keeps its id and its place in the queue.
  await page.goto(`/jobs/${id}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  const edit = page.getByTestId("edit-job");
  await expect(edit.getByLabel("GPUs", { exact: true })).toHaveValue("8");
  await expect(edit.getByLabel("Minimum runtime (protected)")).toHaveValue("2h");
  await edit.getByLabel("GPUs", { exact: true }).fill("0");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(edit).toContainText("The number of GPUs must be at least 1");
  await edit.getByLabel("GPUs", { exact: true }).fill("4");
  await edit.getByLabel("Maximum runtime (optional)").fill("3h");
  await edit.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByRole("status")).toHaveText(`Job #${id} is changed and keeps its place in the queue.`);
  await expect(page.getByText(/changed GPUs 8 -> 4, max runtime none -> 3 h\./)).toBeVisible();
  await expect(page.getByText(`#${id} · 4 GPUs on`)).toBeVisible();
  await expect(page.getByTestId("job-reason")).toContainText("waiting for protected jobs", { timeout: 15_000 });

  // On the idle h100 the same kind of job starts at the next cycle.
  await page.goto("/submit");
  await fillForm(page, { cluster: "h100", gpus: "8", minRuntime: "1h", command: "sleep 120" });
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page).toHaveURL(/\/jobs\/\d+/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Running", { timeout: 20_000 });
  await expect(page.getByText("Protected for", { exact: true })).toBeVisible();
  await expect(page.locator("table").filter({ hasText: "Nodes · GPUs" })).toContainText(/h100-\d+ · (all \d+ GPUs|GPUs? \d)/);
  await admin.close();
});

test("someone else's job sits under the live queue, the viewer's own under My jobs", async ({ page, browser }) => {
  const admin = await browser.newPage();
  await signIn(admin, "admin");
  const res = await admin.request.post("/api/v1/jobs", {
    headers: sameOrigin(admin),
    data: {
      cluster: "h100",
      budget: "lab/vision/video",
      gpus: 1,
      minRuntime: "1h",
      resumable: true,
      priority: 0,
      command: "sleep 60",
      env: {},
      name: "admins-job",
    },
  });
  expect(res.status()).toBe(201);
  const id = ((await res.json()) as { job: { id: number } }).job.id;
  await admin.close();

  await signIn(page, "ada");
  await page.goto(`/jobs/${id}`);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(page.locator(".page-head")).toContainText(`h100 queue / #${id}`);
  await expect(nav.getByRole("link", { name: "Live queue" })).toHaveAttribute("aria-current", "page");
  await expect(nav.getByRole("link", { name: "My jobs" })).not.toHaveAttribute("aria-current", "page");
});

test("a researcher follows a running job's log to its newest line, stops following, and finds its start in the inbox", async ({
  page,
}) => {
  // The job starts, prints for ~15 s, and its agent uploads output on each heartbeat: minutes on a busy machine.
  test.setTimeout(240_000);
  await signIn(page, "ada");
  // 300 numbered lines over ~15 s, then it idles: the page must show the end, not the first page of output.
  const submitted = await page.request.post("/api/v1/jobs", {
    headers: sameOrigin(page),
    data: {
      cluster: "h100",
      budget: "lab/language/pretraining",
      gpus: 1,
      minRuntime: "10m",
      resumable: false,
      priority: 0,
      command: "for i in $(seq 1 300); do echo line-$i; sleep 0.05; done; sleep 300",
      env: {},
      name: "log-follow",
    },
  });
  expect(submitted.status()).toBe(201);
  const id = ((await submitted.json()) as { job: { id: number } }).job.id;

  await page.goto(`/jobs/${id}`);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Running", { timeout: 30_000 });
  const logs = page.getByTestId("job-logs");
  await expect(page.getByTestId("log-follow-state")).toHaveText("following the end of the output live");
  // Followed live to the last line, which did not exist when the page opened.
  await expect(logs).toContainText("line-300", { timeout: 150_000 });
  await page.getByRole("button", { name: "Stop following" }).click();
  await expect(page.getByTestId("log-follow-state")).toHaveText("not following");
  await expect(page.getByRole("button", { name: "Follow", exact: true })).toBeVisible();

  // The same start reached her inbox, linked to the job.
  await page.goto("/notifications");
  const note = page.getByTestId("notification").filter({ has: page.locator(`a[href="/jobs/${id}"]`) });
  await expect(note.first()).toContainText("started", { timeout: 20_000 });

  // Done with it: cancel, so the demo's h100 is free for the next journeys. (It runs before the 10,000-job
  // journey fills h100's queue: behind that queue a new job waits for its turn.)
  const cancelled = await page.request.post(`/api/v1/jobs/${id}/cancel`, { headers: sameOrigin(page) });
  expect(cancelled.status()).toBeLessThan(300);

  // Ended, its output all in: nothing is left to follow, so no Follow or Stop following is offered.
  await page.goto(`/jobs/${id}`);
  await expect(page.getByTestId("log-follow-state")).toHaveText("the end of the output: the job has ended", {
    timeout: 90_000,
  });
  await expect(page.getByRole("button", { name: /follow/i })).toHaveCount(0);
});

test("bad form input shows the specific error and stores nothing", async ({ page }) => {
  await signIn(page, "ada");
  const before = await myJobCount(page.request);
  await page.goto("/submit");
  await fillForm(page, { cluster: "h100", gpus: "0", minRuntime: "2h", command: "python train.py" });
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#gpus-error")).toHaveText("The number of GPUs must be at least 1");
  // Checks that need the cluster come back from the server with the same wording, next to the field.
  await page.getByLabel("GPUs", { exact: true }).fill("12");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#gpus-error")).toContainText(
    "12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)",
  );
  await page.getByLabel("GPUs", { exact: true }).fill("8");
  await page.getByLabel("Minimum runtime (protected)").fill("9h");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#minRuntime-error")).toContainText("Minimum runtime 9 h is above the cluster's limit of 8 h");
  await page.getByLabel("Minimum runtime (protected)").fill("soon");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#minRuntime-error")).toContainText('Minimum runtime "soon" is not a duration');
  await expect(page).toHaveURL(/\/submit$/);
  expect(await myJobCount(page.request)).toBe(before);
});

test("the submit form shows every field's problem from one submit, its own checks and the server's alike", async ({ page }) => {
  await signIn(page, "ada");
  const before = await myJobCount(page.request);
  await page.goto("/submit");
  // Three bad fields at once: each says what is wrong beside it, after a single click.
  await fillForm(page, { cluster: "h100", gpus: "0", minRuntime: "90", command: "python train.py" });
  await page.getByLabel("Environment (KEY=VALUE per line)", { exact: true }).fill("oops");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#gpus-error")).toHaveText("The number of GPUs must be at least 1");
  await expect(page.locator("#minRuntime-error")).toHaveText(
    "Minimum runtime 90 has no unit: write 90m for minutes, 90h for hours or 90s for seconds",
  );
  await expect(page.locator("#env-error")).toHaveText("env line 1 'oops' is not KEY=VALUE");
  await expect(page.getByTestId("form-problems")).toHaveText("3 fields need fixing: each says what is wrong below it.");
  await expect(page.getByLabel("GPUs", { exact: true })).toBeFocused();
  // Fixing one leaves the others in place.
  await page.getByLabel("Environment (KEY=VALUE per line)", { exact: true }).fill("SEED=1");
  await expect(page.locator("#env-error")).toHaveCount(0);
  await expect(page.locator("#gpus-error")).toBeVisible();
  // The cluster's checks come back from the server: both of them, each beside its field.
  await page.getByLabel("GPUs", { exact: true }).fill("12");
  await page.getByLabel("Minimum runtime (protected)").fill("9h");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#gpus-error")).toContainText(
    "12 GPUs span several nodes but are not a multiple of the node size, 8 (use 8 or 16)",
  );
  await expect(page.locator("#minRuntime-error")).toContainText("Minimum runtime 9 h is above the cluster's limit of 8 h");
  await expect(page.locator("#gpus-error")).not.toContainText("Minimum runtime");
  await expect(page).toHaveURL(/\/submit$/);
  expect(await myJobCount(page.request)).toBe(before);
});

test("a manager drags an allocation boundary, saves, and sees the change and its history", async ({ page }) => {
  await signIn(page, "maya");
  await page.goto("/budgets");
  const editor = page.getByTestId("allocation-editor");
  await expect(editor).toContainText("Shares of lab/language on b200");
  await expect(page.getByTestId("share-evaluation")).toHaveValue("15");
  await expect(page.getByTestId("share-multilingual")).toHaveValue("10");
  const strip = await page.getByTestId("alloc-strip").boundingBox();
  const handle = await page.getByTestId("handle-evaluation").boundingBox();
  const x = handle!.x + handle!.width / 2;
  const y = handle!.y + handle!.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + strip!.width * 0.025, y, { steps: 4 });
  await page.mouse.move(x + strip!.width * 0.05, y, { steps: 4 });
  await page.mouse.up();
  // Share moves from the right-hand sibling to the left one; the sum stays 100%.
  await expect(page.getByTestId("share-evaluation")).toHaveValue("20");
  await expect(page.getByTestId("share-multilingual")).toHaveValue("5");
  await expect(page.getByTestId("sum-pill")).toHaveText("100% assigned");
  await page.getByPlaceholder("Note for the history (optional)").fill("evaluation sprint");
  await page.getByRole("button", { name: "Preview effect" }).click();
  await expect(page.getByTestId("what-if")).toContainText("pending jobs");
  await page.getByRole("button", { name: "Save allocations" }).click();
  await expect(page.getByTestId("alloc-flash")).toContainText("lab/language/evaluation 15% → 20%");
  await expect(page.getByTestId("ppm-lab/language/evaluation")).toHaveText("20%");
  const history = page.getByTestId("history");
  await expect(history).toContainText("language/evaluation 15% → 20%");
  await expect(history).toContainText("Maya Manager");
  await expect(history).toContainText("evaluation sprint");
  // Typing is the keyboard alternative; above 100% is refused before saving.
  await page.getByTestId("share-safety").fill("30");
  await expect(page.getByTestId("alloc-flash")).toHaveCount(0); // the last save's note goes with the first change
  await expect(page.getByTestId("sum-pill")).toHaveText("115% assigned");
  await expect(page.getByRole("button", { name: "Save allocations" })).toBeDisabled();
  // A box typed to 0 and then emptied says so and saves nothing (it used to save the 0).
  await page.getByTestId("share-safety").fill("0");
  await page.getByTestId("share-safety").fill("");
  await expect(page.getByTestId("share-box-problem")).toHaveText(/safety is empty/);
  await expect(page.getByRole("button", { name: "Save allocations" })).toBeDisabled();
});

test("a manager outside the subtree sees it read-only and the server refuses the change", async ({ page }) => {
  await signIn(page, "victor");
  await page.goto("/budgets");
  await page.getByTestId("tree-row-lab/language").click();
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.getByTestId("share-evaluation")).toBeDisabled();
  const tree = (await (await page.request.get("/api/v1/budgets")).json()) as {
    root: { children: { path: string; id: string; children: { id: string; path: string }[] }[] };
  };
  const language = tree.root.children.find((c) => c.path === "lab/language")!;
  const res = await page.request.post("/api/trpc/budget.setAllocations", {
    headers: sameOrigin(page),
    data: { json: { cluster: "b200", parentId: language.id, allocations: [{ treeNodeId: language.children[0]!.id, ppm: 0 }] } },
  });
  expect(res.status()).toBe(403);
  expect(JSON.stringify(await res.json())).toContain("You do not manage 'lab/language'");
});

test("an operator drains a node", async ({ page }) => {
  await signIn(page, "omar");
  await page.goto("/nodes");
  await page.getByTestId("node-b200-3").click();
  await page.getByPlaceholder("Reason (recorded in the audit log)").fill("ECC errors on GPU 5");
  // A node with jobs asks first (the demo's may have none on b200-3 now).
  page.once("dialog", (d) => void d.accept());
  await page.getByRole("button", { name: "Drain" }).click();
  await expect(page.getByTestId("node-flash")).toContainText(/b200-3: drain started\. It is (draining|in repair) now\./);
  // Its state and history in words, not the stored codes (DRAINING, READY → REPAIR).
  const panel = page.getByTestId("node-panel");
  await expect(panel).toContainText(/(Draining|In repair) since/);
  await expect(panel).toContainText(/ready → (draining|in repair)/);
  await expect(panel).not.toContainText(/\b(READY|DRAINING|REPAIR)\b/);
  await expect(page.getByTestId("repair-queue")).toContainText("b200-3");
  await expect(page.getByTestId("node-b200-3")).toContainText(/Draining|Repair/);
  // The overview's cluster card counts it in the same words ("10 ready · 1 in repair", not "1 repair").
  await page.goto("/");
  await expect(page.getByTestId("cluster-b200")).toContainText(/10 ready · 1 (draining|in repair)/);
});

test("the nodes page follows a change made elsewhere: its history and repair queue with its list", async ({ page }) => {
  await signIn(page, "omar");
  await page.goto("/nodes");
  await page.getByTestId("node-b200-5").click();
  await page.getByPlaceholder("Reason (recorded in the audit log)").fill("fan noise");
  await page.getByRole("button", { name: "Cordon", exact: true }).click();
  await expect(page.getByTestId("node-flash")).toContainText("b200-5: cordoned. It is cordoned now.");
  const panel = page.getByTestId("node-panel");
  await expect(panel.getByTestId("node-history")).toContainText("ready → cordoned");
  try {
    // Drained from elsewhere (the CLI, another operator; the worker's repair after a drain likewise): the
    // page's list reads it within 2 s, and the history and the repair queue with it (the history was
    // read only after this page's own actions, the queue every 5 s).
    const res = await page.request.post("/api/v1/nodes/b200-5/drain", {
      headers: sameOrigin(page),
      data: { reason: "bad DIMM" },
    });
    expect(res.status()).toBe(200);
    await expect(panel).toContainText(/(Draining|In repair) since/, { timeout: 10_000 });
    await expect(panel.getByTestId("node-history")).toContainText("cordoned → draining", { timeout: 3000 });
    await expect(page.getByTestId("repair-queue")).toContainText("b200-5", { timeout: 3000 });
  } finally {
    await page.request.post("/api/v1/nodes/b200-5/repaired", { headers: sameOrigin(page), data: { reason: "e2e: back" } });
  }
});

test("the CLI and REST round-trip with a token created in the UI", async ({ page, baseURL }) => {
  await signIn(page, "ada");
  await page.goto("/tokens");
  await page.getByLabel("Token name").fill("e2e laptop");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("new-token").textContent())!.trim();
  expect(token).toMatch(/^trn_/);
  // The example to copy names a cluster of this lab (the first by name) and a budget Ada may charge.
  await expect(page.getByText(/tranche submit --cluster b200 \\\s+--budget lab\/\S+/)).toBeVisible();

  // The CLI's saved login (a token) lives in a folder of its own, removed when the journey ends.
  const configDir = mkdtempSync(join(tmpdir(), "tranche-cli-"));
  const env = { ...process.env, TRANCHE_CONFIG: join(configDir, "config.json") };
  try {
    const cli = async (...args: string[]) =>
      (await run(process.execPath, ["apps/cli/bin/tranche.mjs", ...args], { env, cwd: process.cwd() })).stdout;
    expect(await cli("login", "--url", baseURL!, "--token", token)).toContain("as Ada Researcher");
    const submitted = JSON.parse(
      await cli(
        "--json",
        "submit",
        "--cluster",
        "b200",
        "--budget",
        "lab/language/pretraining",
        "--gpus",
        "4",
        "--min-runtime",
        "30m",
        "--resumable",
        "--",
        "python",
        "eval.py",
      ),
    ) as {
      job: { id: number; state: string; minRuntime: number };
    };
    expect(submitted.job).toMatchObject({ state: "PENDING", minRuntime: 1800 });
    const id = submitted.job.id;
    const ls = JSON.parse(await cli("--json", "ls")) as { jobs: { id: number }[] };
    expect(ls.jobs.map((j) => j.id)).toContain(id);
    expect(await cli("explain", String(id))).toContain(`Job #${id}`);
    const queue = JSON.parse(await cli("--json", "queue", "b200")) as { pending: { id: number }[] };
    expect(queue.pending.map((p) => p.id)).toContain(id);
    expect(await cli("cancel", String(id))).toMatch(new RegExp(`Job #${id} (cancelled|is stopping)`));

    const rest = await page.request.get(`/api/v1/jobs/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status()).toBe(200);
    expect(((await rest.json()) as { job: { state: string } }).job.state).toMatch(/CANCELLED|STOPPING/);
    const bad = await cli(
      "--json",
      "submit",
      "--cluster",
      "b200",
      "--budget",
      "lab/vision/video",
      "--gpus",
      "4",
      "--min-runtime",
      "30m",
      "--",
      "x",
    ).catch((e: { stderr: string }) => e.stderr);
    expect(bad).toContain("You may not charge budget 'lab/vision/video'");

    // Revoked in the UI, after its question: the same token now gets 401 with a JSON body.
    await page.reload();
    page.once("dialog", (d) => void d.accept());
    await page
      .getByRole("row", { name: /e2e laptop/ })
      .getByRole("button", { name: "Revoke" })
      .click();
    await expect(page.getByRole("row", { name: /e2e laptop/ })).toContainText("revoked");
    const after = await page.request.get(`/api/v1/jobs`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status()).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    const spec = await page.request.get("/api/v1/openapi.json");
    expect(((await spec.json()) as { openapi: string }).openapi).toBe("3.1.0");
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
});

// How fast the first rows appear is measured by bench/queue-render.bench.ts, not asserted here
// (speed is for benchmarks, never timed tests); this journey checks the 10,000-row queue works.
test("the live queue shows 10,000 pending jobs in a virtualized list that scrolls to the last one", async ({ page }) => {
  // Seeding 10,000 jobs and loading their pages takes minutes on a loaded 2-core machine.
  test.setTimeout(180_000);
  const dbUrl = process.env.E2E_DATABASE_URL;
  expect(dbUrl, "the e2e stack exports its database URL").toBeTruthy();
  await seedPendingJobs(dbUrl!, "h100", 10_000);
  // The seeded jobs are cancelled whatever happens: left waiting, they slow every journey after this one.
  try {
    await signIn(page, "ada");
    await page.goto("/queue/h100");
    await expect(page.getByTestId("pending-list").getByRole("row").first()).toBeVisible({ timeout: 30_000 });
    const count = Number((await page.getByTestId("pending-count").textContent())!.replace(/,/g, ""));
    // The worker may have started a few of them meanwhile.
    expect(count).toBeGreaterThan(9_900);
    await page.waitForLoadState("networkidle").catch(() => undefined);
    // Virtualized: only a screenful of rows is in the DOM.
    expect(await page.getByTestId("pending-list").getByRole("row").count()).toBeLessThan(60);
    await page.getByTestId("pending-list").evaluate((el) => (el.scrollTop = el.scrollHeight));
    // The rows at the end come in their own page request; until it answers they show their positions with
    // skeletons (no row). With 10,000 jobs just seeded, the worker's cycle and the 1.5 s refetches, that
    // request took over 10 s on the 2-core CI machine: wait for the data, however long the machine needs.
    await expect(page.getByTestId("pending-list").getByRole("row").last()).toBeVisible({ timeout: 45_000 });
  } finally {
    await cancelSeededJobs(dbUrl!);
  }
});

test("someone signed out who follows a link signs in and lands on the page the link named", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/budgets?cluster=h100");
  await expect(page).toHaveURL(/\/login\?next=%2Fbudgets%3Fcluster%3Dh100$/);
  await page.getByLabel("Email").fill(USERS.maya);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("who-name")).toBeVisible({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/budgets\?cluster=h100$/);
  // A link that names another site is not followed.
  await page.goto("/login?next=https%3A%2F%2Fevil.example%2F");
  await expect(page).toHaveURL(/\/$/);
});

test("a job or cluster that does not exist is a real 404 page, not a page that loads forever", async ({ page, request }) => {
  // Three cold pages after sign-in: 57 s in a loaded CI run, against the 60 s default.
  test.setTimeout(120_000);
  await signIn(page, "ada");
  for (const path of ["/jobs/999999", "/queue/nope", "/jobs/abc"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Nothing here" })).toBeVisible();
    await expect(page.getByText(/Loading/)).toHaveCount(0);
  }
  const icon = await page.request.get("/icon.svg");
  expect(icon.status()).toBe(200);
  // Paths the server cannot decode or store are bad requests, never a 500: a broken escape, a NUL.
  for (const path of ["/api/v1/budgets/%E0%A4%A/members", "/api/v1/nodes/%00", "/queue/%E0%A4%A"]) {
    const res = await page.request.get(path);
    expect(res.status(), path).toBe(400);
  }
  // A tRPC body past its limit is a 413 that says so, not a JSON error from a body cut short.
  const huge = await request.post("/api/trpc/job.submit", {
    headers: { "content-type": "application/json" },
    data: JSON.stringify({ command: "x".repeat(9 * 1024 * 1024) }),
  });
  expect(huge.status()).toBe(413);
  expect(await huge.text()).toContain("The request body is larger than");
});

test("a researcher ticks several jobs in My jobs and holds, releases and cancels them together", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "ada");
  const submit = (data: Record<string, unknown>): Promise<number> => submitAsAda(page, data);
  const stateOf = async (id: number): Promise<string> =>
    ((await (await page.request.get(`/api/v1/jobs/${id}`)).json()) as { job: { state: string } }).job.state;
  // One job runs; three wait for it to succeed, so they stay pending whatever else the cluster does.
  const parent = await submit({ name: "bulk-parent", command: "sleep 600" });
  const kids = [
    await submit({ name: "bulk-kid", command: "true", after: [`${parent}:ok`] }),
    await submit({ name: "bulk-kid", command: "true", after: [`${parent}:ok`] }),
    await submit({ name: "bulk-kid", command: "true", after: [`${parent}:ok`] }),
  ];
  await expect.poll(() => stateOf(parent), { timeout: 45_000 }).toBe("RUNNING");

  const asked: string[] = [];
  page.on("dialog", (d) => {
    asked.push(d.message());
    void d.accept();
  });
  const tick = async (ids: number[]) => {
    for (const id of ids) await page.getByLabel(`Select job #${id}`).check();
  };
  const bulk = page.getByTestId("bulk-actions");
  await page.goto("/jobs");
  await expect(page.getByTestId(`job-row-${parent}`)).toContainText("Running", { timeout: 15_000 });

  // A hold takes the waiting jobs and says, job by job, why it left the running one alone.
  await tick([kids[0]!, kids[1]!, parent]);
  await expect(bulk).toContainText("3 selected:");
  await bulk.getByRole("button", { name: "Hold selected" }).click();
  expect(asked.at(-1)).toBe("Hold 3 jobs?");
  await expect(bulk.getByRole("alert")).toContainText(
    `Held 2 jobs: #${kids[0]}, #${kids[1]}; the scheduler skips them until they are released.`,
  );
  await expect(bulk.getByRole("alert")).toContainText(`#${parent}: Only a pending job can be held; job ${parent} is running`);
  await expect(page.getByTestId(`job-row-${kids[0]}`)).toContainText("Held");
  expect([await stateOf(kids[0]!), await stateOf(kids[1]!), await stateOf(kids[2]!)]).toEqual(["HELD", "HELD", "PENDING"]);

  await tick([kids[0]!, kids[1]!]);
  await bulk.getByRole("button", { name: "Release selected" }).click();
  expect(asked.at(-1)).toBe("Release 2 jobs?");
  await expect(bulk.getByRole("status")).toHaveText(
    `Released 2 jobs: #${kids[0]}, #${kids[1]}; back in the queue, in their place by their budget and submit time.`,
  );

  // Cancelled together, so they hold no GPU for the journeys after this one.
  await tick([parent, ...kids]);
  await bulk.getByRole("button", { name: "Cancel selected" }).click();
  expect(asked.at(-1)).toBe("Cancel 4 jobs?");
  await expect(bulk.getByRole("status")).toHaveText(
    `Cancelled 4 jobs: #${parent}, #${kids[0]}, #${kids[1]}, #${kids[2]}; a running one stops within its grace period.`,
  );
  expect(await Promise.all(kids.map(stateOf))).toEqual(["CANCELLED", "CANCELLED", "CANCELLED"]);
  expect(["STOPPING", "CANCELLED"]).toContain(await stateOf(parent));
});

test("a researcher holds and releases a whole array from its page, and sees how an ended job ended", async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page, "ada");
  const submit = (data: Record<string, unknown>): Promise<number> => submitAsAda(page, data);
  const states = async (query: string): Promise<string[]> => {
    const res = await page.request.get(`/api/v1/jobs?${query}`);
    return ((await res.json()) as { jobs: { state: string }[] }).jobs.map((j) => j.state);
  };
  const failing = await submit({ name: "exits-7", command: "exit 7" });
  // Ten tasks, one at a time: one runs, nine wait behind it.
  const array = await submit({ name: "sweep", command: "sleep 600", array: "0-9%1" });
  await expect.poll(() => states(`array=${array}`), { timeout: 45_000 }).toContain("RUNNING");

  // My jobs' finished tab says how the failed job ended, in tranche ls's words.
  await expect.poll(async () => (await states("active=false&limit=20")).length, { timeout: 45_000 }).toBeGreaterThan(0);
  await page.goto("/jobs");
  await page.getByRole("group", { name: "Filter" }).getByRole("button", { name: "Finished" }).click();
  await expect(page.getByTestId(`job-row-${failing}`)).toContainText(/Exit code 7, ended (just now|.+ ago)/, {
    timeout: 45_000,
  });

  // My jobs shows the array as one row saying where its tasks stand, not a row per task; it leads to its page.
  await page.getByRole("group", { name: "Filter" }).getByRole("button", { name: "Active" }).click();
  const arrayRow = page.getByTestId(`array-row-${array}`);
  await expect(arrayRow).toContainText("array of 10: 9 pending, 1 running", { timeout: 15_000 });
  await expect(page.getByTestId(`job-row-${array}`)).toHaveCount(0);
  await arrayRow.getByRole("link", { name: "see its 10 tasks" }).click();
  await expect(page).toHaveURL(new RegExp(`/arrays/${array}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Array #${array}`);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My jobs" })).toHaveAttribute(
    "aria-current",
    "page",
  );
  const byState = page.getByRole("group", { name: "Tasks by state" }).getByRole("button");
  await expect(byState).toHaveText(["All 10 tasks", "9 pending", "1 running"], { timeout: 15_000 });
  const rows = page.getByRole("table", { name: "Jobs" }).locator("tbody tr");
  await expect(rows).toHaveCount(10);
  // Its counts choose which tasks the list shows: the one running, then all ten again.
  await byState.filter({ hasText: "1 running" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Running");
  await byState.filter({ hasText: "All 10 tasks" }).click();
  await expect(rows).toHaveCount(10);

  // Each button says first how many tasks it touches, then what it did.
  const asked: string[] = [];
  page.on("dialog", (d) => {
    asked.push(d.message());
    void d.accept();
  });
  await page.getByRole("button", { name: "Hold all pending tasks" }).click();
  await expect(page.getByRole("status")).toHaveText("Held 9 pending tasks; 1 was already running.");
  expect(asked.at(-1)).toBe(
    `Hold the 9 pending tasks of array #${array}? They will not start until released; 1 running task goes on.`,
  );
  await expect(byState).toHaveText(["All 10 tasks", "9 held", "1 running"]);
  expect(await states(`array=${array}`)).toEqual(expect.arrayContaining(["HELD", "RUNNING"]));
  await expect(page.getByRole("button", { name: "Hold all pending tasks" })).toHaveCount(0);

  await page.getByRole("button", { name: "Release all held tasks" }).click();
  await expect(page.getByRole("status")).toHaveText("Released 9 held tasks.");
  expect(asked.at(-1)).toBe(`Release the 9 held tasks of array #${array}? They go back in the queue.`);
  await expect(byState).toHaveText(["All 10 tasks", "9 pending", "1 running"]);

  // Cancelled whole, so it holds no GPU for the journeys after this one.
  await page.getByRole("button", { name: "Cancel the whole array" }).click();
  await expect(page.getByRole("status")).toHaveText("Cancelled 9 waiting tasks; 1 running task asked to stop.");
  expect(await states(`array=${array}&active=true`)).not.toContain("PENDING");
});

test("a manager holds and releases a member's job from its page, and its owner reads who did it", async ({ page, browser }) => {
  test.setTimeout(120_000);
  await signIn(page, "ada");
  const submit = (data: Record<string, unknown>): Promise<number> => submitAsAda(page, data);
  // The job waits for its parent to succeed, so it stays pending whatever else the cluster does.
  const parent = await submit({ name: "managed-parent", command: "sleep 600" });
  const job = await submit({ name: "managed-kid", command: "true", after: [`${parent}:ok`] });

  // Maya manages lab/language, above the job's budget.
  const managerContext = await browser.newContext();
  const maya = await managerContext.newPage();
  await signIn(maya, "maya");
  await maya.goto(`/jobs/${job}`);
  await maya.getByRole("button", { name: "Hold", exact: true }).click();
  await expect(maya.getByRole("button", { name: "Release", exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(maya.getByText("Held by Maya Manager, manager of lab/language").first()).toBeVisible();

  // Its owner reads who held it, and may not lift a manager's hold.
  await page.goto(`/jobs/${job}`);
  await expect(page.getByText("Held by Maya Manager, manager of lab/language").first()).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole("button", { name: "Release", exact: true })).toHaveCount(0);

  await maya.getByRole("button", { name: "Release", exact: true }).click();
  await expect(maya.getByRole("button", { name: "Hold", exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(maya.getByText("Released by Maya Manager, manager of lab/language").first()).toBeVisible();
  await managerContext.close();

  // Victor manages lab/vision: no buttons on a lab/language job.
  const otherContext = await browser.newContext();
  const victor = await otherContext.newPage();
  await signIn(victor, "victor");
  await victor.goto(`/jobs/${job}`);
  await expect(victor.getByRole("heading", { name: /managed-kid/ })).toBeVisible({ timeout: 15_000 });
  await expect(victor.getByRole("button", { name: "Hold", exact: true })).toHaveCount(0);
  await expect(victor.getByRole("button", { name: /Cancel/ })).toHaveCount(0);
  await otherContext.close();

  for (const id of [job, parent]) await page.request.post(`/api/v1/jobs/${id}/cancel`, { headers: sameOrigin(page) });
});
