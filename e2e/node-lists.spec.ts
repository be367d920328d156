import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";

// The submit form's node lists (Slurm's --nodelist / --exclude): the errors under the boxes, the job
// page's words, and the job running on the node it named.
test("a researcher names the node a job must run on, sees it in words and running there", async ({ page }) => {
  await signIn(page, "ada");
  await page.goto("/submit");
  await page.getByLabel("Cluster", { exact: true }).selectOption("h100");
  await page.getByLabel("Budget", { exact: true }).selectOption("lab/language/pretraining");
  await page.getByLabel("GPUs", { exact: true }).fill("1");
  await page.getByLabel("Minimum runtime (protected)").fill("1h");
  await page.getByLabel("Command", { exact: true }).fill("sleep 120");
  const only = page.getByLabel("Run only on nodes (optional)");
  const never = page.getByLabel("Never on nodes (optional)");
  // Checked in the browser: a node in both boxes.
  await only.fill("h100-[3-4]");
  await never.fill("h100-4");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#excludeNodes-error")).toContainText("node 'h100-4' is both to run on and to avoid");
  // Checked by the server, with the same words next to the box: a node the cluster does not have.
  await never.fill("");
  await only.fill("h100-99");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page.locator("#nodes-error")).toHaveText("cluster 'h100' has no node 'h100-99'");
  await expect(page).toHaveURL(/\/submit$/);

  await only.fill("h100-3");
  await page.getByRole("button", { name: "Submit job" }).click();
  await expect(page).toHaveURL(/\/jobs\/\d+/);
  await expect(page.getByTestId("node-lists")).toHaveText("Runs only on h100-3.");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Running", { timeout: 20_000 });
  await expect(page.locator("table").filter({ hasText: "Nodes · GPUs" })).toContainText("h100-3 ·");
});
