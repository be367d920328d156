import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";
import { removeTreeNode, removeUser } from "./support/scratch-rows";

// An admin sets the lab up from the browser, as `tranche admin import` does: a file with a mistake is
// refused at its place, a good one is checked, imported, is in the lab downloaded as a file, and its
// budget is on the Budgets page. What it imported is taken out of the shared e2e database again when it
// ends: the journeys after it found Lin among the users and an empty budget in lab/science.
const dbUrl = () => {
  const url = process.env.E2E_DATABASE_URL;
  expect(url, "the e2e stack exports its database URL").toBeTruthy();
  return url!;
};
test.afterEach(async () => {
  // The user first: their membership goes with them, and the budget is then empty.
  await removeUser(dbUrl(), "lin@lab.example");
  await removeTreeNode(dbUrl(), "lab/science/oceans");
});

test("an admin checks and imports a small lab file and finds its budget on the budgets page", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/admin/lab");
  const text = page.getByRole("textbox", { name: "Lab file" });
  const importButton = page.getByRole("button", { name: "Import", exact: true });
  await text.fill("tree:\n  - path: lab/science/oceans\n    members: [nobody@lab.example]\n");
  await page.getByRole("button", { name: "Check", exact: true }).click();
  await expect(page.getByTestId("lab-problems")).toContainText("tree[0].members[0]");
  await expect(importButton).toBeDisabled();
  await text.fill(
    'users:\n  - { email: "lin@lab.example", name: "Lin Lee" }\ntree:\n  - path: lab/science/oceans\n    members: ["lin@lab.example"]\n',
  );
  await page.getByRole("button", { name: "Check", exact: true }).click();
  const changes = page.getByTestId("lab-changes");
  await expect(changes).toContainText("The import would change: 1 user created, 1 tree node created, 1 member added.");
  await expect(changes.getByRole("region", { name: "Tree" })).toContainText("would create tree node lab/science/oceans");
  await importButton.click();
  await expect(changes).toContainText("Imported: 1 user created, 1 tree node created, 1 member added.");
  await expect(changes.getByRole("region", { name: "Set-password links" })).toContainText("lin@lab.example: http");
  await expect(importButton).toBeDisabled();
  // The lab as a file holds what was imported, to edit and import again.
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download the lab as a lab file" }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe("lab.yaml");
  const saved = readFileSync(await file.path(), "utf8");
  expect(saved).toContain('  - path: "lab/science/oceans"\n    members: ["lin@lab.example"]\n');
  await page.goto("/budgets");
  await expect(page.getByTestId("tree-row-lab/science/oceans")).toBeVisible();
});

// Runs after the import's journey (one worker, files' tests in order): its afterEach left nothing behind.
test("the import's user and budget are gone again after its journey", async ({ page }) => {
  await signIn(page, "admin");
  await page.goto("/admin/users");
  await page.getByLabel("Find a user by name or e-mail").fill("lin@lab.example");
  await expect(page.getByTestId("users-count")).toHaveText("No one's name or e-mail holds “lin@lab.example”.");
  await page.goto("/budgets");
  await expect(page.getByTestId("tree-row-lab/science/climate")).toBeVisible();
  await expect(page.getByTestId("tree-row-lab/science/oceans")).toHaveCount(0);
});
