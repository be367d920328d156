import { expect, test, type Page } from "@playwright/test";
import { type USERS, signIn } from "./support/helpers";

// A phone's width. The sidebar kept its 232 px there and each page was a column a few words wide,
// its tables pushing the page three times the screen's width.
test.use({ viewport: { width: 390, height: 844 } });

const PAGES: [keyof typeof USERS, string][] = [
  ["ada", "/"],
  ["ada", "/jobs"],
  ["ada", "/submit"],
  ["maya", "/budgets"],
  ["omar", "/nodes"],
  ["admin", "/audit"],
];

/** How wide the page is against the screen, and where its heading starts. */
const fit = (page: Page) =>
  page.evaluate(() => ({
    wider: document.documentElement.scrollWidth - window.innerWidth,
    headingLeft: document.querySelector("main h1")!.getBoundingClientRect().left,
  }));

test("at a phone's width each page fits the screen, its heading at the left under the links", async ({ page }) => {
  test.setTimeout(120_000);
  let who: string | null = null;
  for (const [user, path] of PAGES) {
    if (user !== who) {
      await page.context().clearCookies();
      await signIn(page, user);
      who = user;
    }
    await page.goto(path);
    await expect(page.locator("main h1")).toBeVisible();
    const { wider, headingLeft } = await fit(page);
    expect(wider, `${user} ${path}: wider than the screen`).toBeLessThanOrEqual(0);
    expect(headingLeft, `${user} ${path}: where the heading starts`).toBeLessThan(40);
    // Every link of the sidebar is still there to tap.
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My jobs" })).toBeVisible();
  }
});

test("at a phone's width the admin's tree shows the node picked, under the whole tree", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/admin");
  await page.getByRole("button", { name: "Select lab/vision/video", exact: true }).click();
  await expect(page.getByRole("region", { name: "Change lab/vision/video" })).toBeInViewport();
});
