/// <reference lib="dom" />
// cutTexts runs in the page (locator.evaluate), where the DOM is the global scope.
import { expect, type Locator, type Page } from "@playwright/test";

export const PASSWORD = "tranche-demo";
export const USERS = {
  ada: "ada@tranche.example",
  maya: "maya@tranche.example",
  victor: "victor@tranche.example",
  omar: "omar@tranche.example",
  admin: "admin@tranche.example",
} as const;

/**
 * Sign in through the real login form. The first page after sign-in renders the whole layout; on a
 * loaded 2-core CI machine with a busy demo that took over 10 s (the default expect timeout), so the
 * wait is longer here than for other checks.
 */
export async function signIn(page: Page, who: keyof typeof USERS, timeout = 30_000): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Email").fill(USERS[who]);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByTestId("who-name")).toBeVisible({ timeout });
}

/**
 * A browser's own pages send Origin with every change; Playwright's request API does not, and the
 * app refuses cookie-authenticated changes without it (cross-site request forgery guard).
 */
export function sameOrigin(page: Page): { origin: string } {
  return { origin: new URL(page.url()).origin };
}

/**
 * Submits a one-GPU, 10-minute, resumable job to lab/language/pretraining through REST from the signed-in
 * page (ada's budget), with `data` on top, and returns its id; the submission must be taken.
 */
export async function submitAsAda(page: Page, data: Record<string, unknown>): Promise<number> {
  const res = await page.request.post("/api/v1/jobs", {
    headers: sameOrigin(page),
    data: { cluster: "h100", budget: "lab/language/pretraining", gpus: 1, minRuntime: "10m", resumable: true, env: {}, ...data },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { job: { id: number } }).job.id;
}

/**
 * The texts under `root` (itself included) that are cut off at their box's right edge: an element that
 * hides what overflows it (overflow hidden or clip, as an ellipsis does) and is narrower than its text.
 * What is cut there a reader cannot see. Scroll boxes are not counted: their overflow can be scrolled to.
 */
export function cutTexts(root: Locator): Promise<string[]> {
  return root.evaluate((el) =>
    [el, ...Array.from(el.querySelectorAll("*"))]
      .filter((e) => {
        const x = getComputedStyle(e).overflowX;
        return (x === "hidden" || x === "clip") && e.scrollWidth > e.clientWidth && (e.textContent ?? "").trim() !== "";
      })
      .map((e) => `${(e.textContent ?? "").trim()} (${e.scrollWidth} px of text in ${e.clientWidth} px)`),
  );
}
