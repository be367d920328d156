import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

// Two browsers signed in as one person: the one ends the other's session from "Signed-in browsers";
// the ended one is sent to sign-in at its next page, the one in use stays signed in.
test("a person signs one browser out from another, which stays signed in", async ({ browser }) => {
  const desk = await browser.newContext();
  const laptop = await browser.newContext({ userAgent: FIREFOX });
  const here = await desk.newPage();
  const there = await laptop.newPage();
  await signIn(there, "ada");
  await signIn(here, "ada");
  await here.getByRole("link", { name: "Signed-in browsers" }).click();
  const table = here.getByRole("table", { name: "Signed-in browsers" });
  await expect(table).toContainText("(this browser)");
  await expect(table).toContainText("Firefox on Linux");
  await table.getByRole("button", { name: "Sign out Firefox on Linux" }).click();
  await expect(table).not.toContainText("Firefox on Linux");
  await there.goto("/jobs");
  await expect(there).toHaveURL(/\/login/);
  await here.goto("/jobs");
  await expect(here.getByTestId("who-name")).toBeVisible();
  await desk.close();
  await laptop.close();
});

// The audit log is in the sidebar for an operator, outside the admins' pages.
test("an operator opens the audit log from the sidebar", async ({ page }) => {
  await signIn(page, "omar");
  await page.getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/audit$/);
  await expect(page.getByRole("heading", { name: "Audit log" })).toBeVisible();
  await expect(page.getByText("This page is for")).toHaveCount(0);
});
