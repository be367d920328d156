/// <reference lib="dom" />
// The waits below run in the page (page.evaluate), where the DOM is the global scope.
import { test, type Page } from "@playwright/test";
import { type USERS, sameOrigin, signIn as signInWith } from "./support/helpers";

/**
 * Every page at desktop (1440) and laptop (1280) widths (a few at a phone's, 390), as researcher, manager, operator and admin,
 * for people to look at one by one: test-results/screenshots/<who>-<page>-<width>.png. Not part of
 * `npm test` (it checks nothing the journeys do not): `npm run build && npm run screenshots`; best on a
 * demo that has run a while (E2E_EXTERNAL=1 E2E_PORT=<its port> npm run screenshots).
 * ":mine" is a job Ada submits here; ":other" a running job someone else submitted.
 */
const PAGES: [keyof typeof USERS, string, string][] = [
  ["ada", "overview", "/"],
  ["ada", "submit", "/submit"],
  ["ada", "jobs", "/jobs"],
  ["ada", "job", "/jobs/:mine"],
  ["ada", "job-other", "/jobs/:other"],
  ["ada", "queues", "/queue"],
  ["ada", "queue-h100", "/queue/h100"],
  ["ada", "queue-b200", "/queue/b200"],
  ["ada", "budgets", "/budgets"],
  ["ada", "charts", "/charts"],
  ["ada", "notifications", "/notifications"],
  ["ada", "tokens", "/tokens"],
  ["ada", "session-new", "/sessions/new"],
  ["ada", "sign-ins", "/sign-ins"],
  ["ada", "not-found", "/jobs/999999"],
  ["maya", "overview", "/"],
  ["maya", "budgets", "/budgets"],
  ["maya", "charts", "/charts"],
  ["maya", "queue-h100", "/queue/h100"],
  ["maya", "audit", "/audit"],
  ["omar", "overview", "/"],
  ["omar", "nodes", "/nodes"],
  ["omar", "clusters", "/admin/clusters"],
  ["omar", "audit", "/audit"],
  ["admin", "tree", "/admin"],
  ["admin", "users", "/admin/users"],
  ["admin", "clusters", "/admin/clusters"],
  ["admin", "audit", "/audit"],
  ["admin", "lab-file", "/admin/lab"],
  ["admin", "nodes", "/nodes"],
  ["admin", "budgets", "/budgets"],
];

/** Pages also shot at a phone's width (390 px), where tables and forms must still read. */
const PHONE = new Set([
  "ada-overview",
  "ada-submit",
  "ada-jobs",
  "ada-job",
  "ada-queue-h100",
  "maya-budgets",
  "omar-nodes",
  "admin-audit",
]);

/**
 * Waits until the page shows its real content: no skeleton and no "Loading…" text, twice in a row
 * (a page that loads in steps shows its next skeleton between two queries). Live pages poll every
 * few seconds, so the network is never idle for long: it is not waited for.
 */
async function loaded(page: Page): Promise<void> {
  await page.waitForLoadState("domcontentloaded");
  const busy = () =>
    page.evaluate(() => {
      if (document.querySelector(".skeleton, [aria-busy='true']")) return true;
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) if (/^\s*Loading/.test(n.nodeValue ?? "")) return true;
      return !document.querySelector("main h1, main h2, form");
    });
  let quiet = 0;
  for (let i = 0; i < 240 && quiet < 2; i++) {
    quiet = (await busy()) ? 0 : quiet + 1;
    await page.waitForTimeout(250);
  }
}

/** A loaded demo can take long to render the first page after sign-in. */
const signIn = (page: Page, who: keyof typeof USERS) => signInWith(page, who, 60_000);

async function submitMine(page: Page): Promise<number> {
  const res = await page.request.post("/api/v1/jobs", {
    headers: sameOrigin(page),
    data: {
      cluster: "h100",
      budget: "lab/language/pretraining",
      gpus: 8,
      minRuntime: "2h",
      resumable: true,
      priority: 0,
      // Runs on the demo's real agents (a command that does not exist fails at once: a failed job, no logs).
      command: 'for i in $(seq 1 720); do echo "step $i"; sleep 5; done',
      env: { WANDB_PROJECT: "pretrain-7b" },
      name: "pretrain-7b",
    },
  });
  return ((await res.json()) as { job: { id: number } }).job.id;
}

/** A running job of someone else on h100 (the demo's workload runs many); else Ada's own. */
async function someoneElses(page: Page, mine: number): Promise<number> {
  const res = await page.request.get("/api/v1/queue/h100?limit=50");
  const q = (await res.json()) as { running?: { id: number; user: string }[] };
  return q.running?.find((r) => !/ada/i.test(r.user))?.id ?? mine;
}

test("screenshots of every page at 1440 and 1280", async ({ page }) => {
  test.setTimeout(900_000); // 50+ shots, with the demo's real agents on a 2-core machine
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/login");
  await page.waitForLoadState("networkidle");
  for (const w of [1440, 1280]) {
    await page.setViewportSize({ width: w, height: 900 });
    await page.screenshot({ path: `test-results/screenshots/login-${w}.png`, fullPage: true });
  }
  let who: string | null = null;
  let mine = 0;
  let other = 0;
  for (const [user, name, path] of PAGES) {
    if (who !== user) {
      await page.context().clearCookies();
      await page.setViewportSize({ width: 1440, height: 900 });
      await signIn(page, user);
      who = user;
      if (user === "ada" && !mine) {
        mine = await submitMine(page);
        other = await someoneElses(page, mine);
      }
    }
    // One visit per page, shot at each width in turn: the layout follows the width by CSS (and a
    // ResizeObserver), never by what the page read when it loaded, so a resize shows what a load would.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(path.replace(":mine", String(mine)).replace(":other", String(other)));
    for (const w of PHONE.has(`${user}-${name}`) ? [1440, 1280, 390] : [1440, 1280]) {
      await page.setViewportSize({ width: w, height: 900 });
      await loaded(page);
      // Long lists (hundreds of jobs) are shot as one screenful; other pages in full.
      await page.screenshot({ path: `test-results/screenshots/${user}-${name}-${w}.png`, fullPage: name !== "jobs" });
    }
  }
  // Ada's job is not left running on the demo (each run submitted another 8-GPU hour).
  await page.context().clearCookies();
  await signIn(page, "ada");
  await page.request.post(`/api/v1/jobs/${mine}/cancel`, { headers: sameOrigin(page) });
});
