import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";
import { removePeople, seedPeople } from "./support/scratch-rows";

// A lab's 60 people on the Users page: found by a part of their e-mail as the admin types, and paged by
// the server. They are put in straight and taken out again when the journey ends.
const DOMAIN = "people-page.example";

test("an admin finds one of a lab's 60 people by a part of their e-mail, and pages through them", async ({ page }) => {
  test.setTimeout(90_000);
  const dbUrl = process.env.E2E_DATABASE_URL;
  expect(dbUrl, "the e2e stack exports its database URL").toBeTruthy();
  await seedPeople(dbUrl!, DOMAIN, 60);
  try {
    await signIn(page, "admin");
    await page.goto("/admin/users");
    const count = page.getByTestId("users-count");
    const rows = page.getByRole("table", { name: "Users" }).locator("tbody tr");
    await expect(count).toHaveText(/^\d+ people, 25 shown$/);
    await expect(rows).toHaveCount(25);

    const find = page.getByLabel("Find a user by name or e-mail");
    await find.fill("SON42@people");
    await expect(count).toHaveText("1 person matches “SON42@people”, 1 shown");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText(`person42@${DOMAIN}`);

    await find.fill(DOMAIN);
    await expect(count).toHaveText(`60 people match “${DOMAIN}”, 25 shown`);
    await expect(rows.first()).toContainText(`person00@${DOMAIN}`);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect(count).toHaveText(`60 people match “${DOMAIN}”, 26 to 50 shown`);
    await expect(rows.first()).toContainText(`person25@${DOMAIN}`);
    await page.getByRole("button", { name: "Next page" }).click();
    await expect(count).toHaveText(`60 people match “${DOMAIN}”, 51 to 60 shown`);
    await expect(rows).toHaveCount(10);
    await expect(page.getByRole("button", { name: "Next page" })).toBeDisabled();
    await page.getByRole("button", { name: "Previous page" }).click();
    await expect(rows.first()).toContainText(`person25@${DOMAIN}`);

    // A wildcard typed is a character searched for: nobody's e-mail holds a '%'.
    await find.fill("%");
    await expect(count).toHaveText("No one's name or e-mail holds “%”.");
    await expect(rows).toHaveCount(0);
  } finally {
    await removePeople(dbUrl!, DOMAIN);
  }
});
