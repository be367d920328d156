import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";

// R8's planned drain on the Nodes page: the Drain button's "at a time", the plan in words on the node
// and in its panel, and a cancel that asks first.
test("an operator plans a node's drain at a time, sees it in words, and cancels it", async ({ page }) => {
  await signIn(page, "omar");
  await page.goto("/nodes");
  await page.getByRole("group", { name: "Cluster" }).getByRole("button", { name: "h100" }).click();
  await page.getByTestId("node-h100-9").click();
  await page.getByPlaceholder("Reason (recorded in the audit log)").fill("driver 560");
  await page.getByLabel("at a time").check();
  // A time that has passed is refused on the page, and nothing is sent.
  await page.getByLabel("Drain at (your local time)").fill("2020-01-01T02:00");
  await page.getByRole("button", { name: "Plan drain" }).click();
  await expect(page.getByTestId("drain-controls").getByRole("alert")).toContainText("That time has passed");
  await page.getByLabel("Drain at (your local time)").fill("2030-12-14T02:00");
  await page.getByRole("button", { name: "Plan drain" }).click();
  await expect(page.getByTestId("node-flash")).toContainText("h100-9: drain planned. It is ready now.");
  // In words, in the browser's zone, never the stored time.
  await expect(page.getByTestId("plan-h100-9")).toHaveText(
    "maintenance at Sat 14 Dec 2030 02:00 (driver 560, planned by Omar Operator)",
  );
  const panel = page.getByTestId("node-panel");
  await expect(panel.getByTestId("drain-plan")).toContainText("Planned: maintenance at Sat 14 Dec 2030 02:00");
  await expect(panel.getByTestId("node-history")).toContainText("Maintenance planned for Sat 14 Dec 2030");
  await expect(panel).not.toContainText(/2030-12-14T/);

  // Cancelling asks first: dismissed, the plan stays; accepted, it goes.
  page.once("dialog", (d) => void d.dismiss());
  await page.getByRole("button", { name: "Cancel plan" }).click();
  await expect(page.getByTestId("plan-h100-9")).toBeVisible();
  page.once("dialog", (d) => {
    expect(d.message()).toContain("Cancel the planned drain of h100-9");
    void d.accept();
  });
  await page.getByRole("button", { name: "Cancel plan" }).click();
  await expect(page.getByTestId("node-flash")).toContainText("h100-9: planned drain cancelled.");
  await expect(page.getByTestId("plan-h100-9")).toHaveCount(0);
  await expect(panel.getByTestId("node-history")).toContainText("Planned maintenance cancelled");
});
