import { test } from "@playwright/test";
import { sameOrigin, signIn, type USERS } from "./support/helpers";

// Every page at desktop (1440) and laptop (1280) widths, for people to look at: test-results/screenshots/.
const PAGES: [keyof typeof USERS, string, string][] = [
  ["ada", "overview", "/"],
  ["ada", "submit", "/submit"],
  ["ada", "jobs", "/jobs"],
  ["ada", "job", "/jobs/:mine"],
  ["ada", "queue", "/queue/h100"],
  ["maya", "budgets", "/budgets"],
  ["omar", "nodes", "/nodes"],
  ["ada", "charts", "/charts"],
  ["ada", "tokens", "/tokens"],
];

test("screenshots of every page at 1440 and 1280", async ({ page }) => {
  test.setTimeout(360_000); // 20+ pages x 2 widths, with the demo's 43 real agents on a 2-core machine
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/login");
  await page.waitForLoadState("networkidle");
  for (const w of [1440, 1280]) {
    await page.setViewportSize({ width: w, height: 900 });
    await page.screenshot({ path: `test-results/screenshots/login-${w}.png`, fullPage: true });
  }
  let who: string | null = null;
  let mine = 0;
  for (const [user, name, path] of PAGES) {
    if (who !== user) {
      await page.context().clearCookies();
      await page.setViewportSize({ width: 1440, height: 900 });
      await signIn(page, user);
      who = user;
      if (user === "ada" && !mine) {
        const res = await page.request.post("/api/v1/jobs", {
          headers: sameOrigin(page),
          data: {
            cluster: "h100",
            budget: "lab/language/pretraining",
            gpus: 8,
            minRuntime: "2h",
            resumable: true,
            priority: 0,
            command: "torchrun --nproc-per-node 8 train.py --resume",
            env: { WANDB_PROJECT: "pretrain-7b" },
            name: "pretrain-7b",
          },
        });
        mine = ((await res.json()) as { job: { id: number } }).job.id;
      }
    }
    for (const w of [1440, 1280]) {
      await page.setViewportSize({ width: w, height: 900 });
      await page.goto(path.replace(":mine", String(mine)));
      await page.waitForLoadState("networkidle").catch(() => undefined);
      await page.waitForTimeout(600);
      // Long lists (hundreds of jobs) are shot as one screenful; other pages in full.
      await page.screenshot({ path: `test-results/screenshots/${name}-${w}.png`, fullPage: name !== "jobs" });
    }
  }
});
