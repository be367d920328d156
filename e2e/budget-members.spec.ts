import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";

// A manager names, adds and removes the members of the budgets they manage on the Budgets page (the
// one web page that did it was the admins' tree page); a manager of another subtree sees no names.
test("a manager adds and removes a member of a budget they manage on the budgets page", async ({ page }) => {
  await signIn(page, "maya");
  await page.goto("/budgets");
  const panel = page.getByTestId("budget-members");
  const row = panel.getByTestId("members-lab/language/evaluation");
  await expect(row.getByRole("listitem").first()).toContainText("@tranche.example");
  await row.getByLabel("Add a member to lab/language/evaluation").fill("nobody@tranche.example");
  await row.getByRole("button", { name: "Add" }).click();
  await expect(row.getByRole("alert")).toContainText("there is no user 'nobody@tranche.example'");
  await row.getByLabel("Add a member to lab/language/evaluation").fill("omar@tranche.example");
  await row.getByRole("button", { name: "Add" }).click();
  await expect(row.getByRole("status")).toHaveText("omar@tranche.example may now submit to lab/language/evaluation.");
  await expect(row).toContainText("Omar Operator <omar@tranche.example>");
  await row.getByRole("button", { name: "Remove omar@tranche.example from lab/language/evaluation" }).click();
  await expect(row.getByRole("status")).toHaveText("omar@tranche.example may no longer submit to lab/language/evaluation.");
  await expect(row).not.toContainText("omar@tranche.example>");
});

test("a manager of another subtree gets no members panel for it", async ({ page }) => {
  await signIn(page, "victor");
  await page.goto("/budgets");
  await expect(page.getByTestId("budget-members")).toContainText("lab/vision/");
  await page.getByTestId("tree-row-lab/language").click();
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.getByTestId("budget-members")).toHaveCount(0);
});
