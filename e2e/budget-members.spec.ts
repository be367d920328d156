import { expect, test } from "@playwright/test";
import { signIn } from "./support/helpers";

// A manager names, adds and removes the members of the budgets they manage on the Budgets page (the
// one web page that did it was the admins' tree page), and adds, renames, moves and archives budgets there; a
// manager of another subtree sees no names and no way to shape it.
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
  // Removing asks first, saying what it does; refused, nothing changes.
  const removeQuestion: string[] = [];
  page.once("dialog", (d) => void (removeQuestion.push(d.message()), d.dismiss()));
  await row.getByRole("button", { name: "Remove omar@tranche.example from lab/language/evaluation" }).click();
  expect(removeQuestion).toEqual([
    "Remove omar@tranche.example from lab/language/evaluation? They may no longer submit to it; their jobs already waiting or running there stay charged to it.",
  ]);
  await expect(row).toContainText("Omar Operator <omar@tranche.example>");
  page.once("dialog", (d) => void d.accept());
  await row.getByRole("button", { name: "Remove omar@tranche.example from lab/language/evaluation" }).click();
  await expect(row.getByRole("status")).toHaveText("omar@tranche.example may no longer submit to lab/language/evaluation.");
  await expect(row).not.toContainText("omar@tranche.example>");
  // She shapes her subtree too: a new budget, renamed, then archived; her own node keeps its name.
  const shape = page.getByTestId("tree-shape");
  await expect(shape).toContainText("Shape lab/language");
  await expect(shape.getByRole("button", { name: "Rename" })).toHaveCount(0);
  await shape.getByLabel("New budget under lab/language").fill("long-context");
  await shape.getByRole("button", { name: "Add a budget here" }).click();
  await expect(shape.getByRole("status")).toHaveText("Created lab/language/long-context.");
  await page.getByTestId("tree-row-lab/language/long-context").click();
  await shape.getByLabel("New name for lab/language/long-context").fill("long-ctx");
  await shape.getByRole("button", { name: "Rename" }).click();
  await expect(shape.getByRole("status")).toHaveText("Renamed lab/language/long-context to lab/language/long-ctx.");
  // She moves it into a new group: a budget with members is not offered (the server would refuse it),
  // and the question says what goes with it before it moves.
  await page.getByTestId("tree-row-lab/language").click();
  await shape.getByLabel("New budget under lab/language").fill("agents");
  await shape.getByRole("button", { name: "Add a budget here" }).click();
  await expect(shape.getByRole("status")).toHaveText("Created lab/language/agents.");
  await page.getByTestId("tree-row-lab/language/long-ctx").click();
  const parent = shape.getByLabel("New parent for lab/language/long-ctx");
  await expect(parent.locator("option", { hasText: "lab/vision" })).toHaveCount(0);
  await expect(parent.locator("option", { hasText: "lab/language/pretraining" })).toHaveCount(0);
  await parent.selectOption("lab/language/agents");
  await shape.getByRole("button", { name: "Move", exact: true }).click();
  await expect(shape.getByTestId("move-confirm")).toContainText(
    "Move lab/language/long-ctx under lab/language/agents? It becomes lab/language/agents/long-ctx. The jobs charged to it go with it.",
  );
  await shape.getByRole("button", { name: "Yes, move it" }).click();
  await expect(shape.getByRole("status")).toHaveText("Moved lab/language/long-ctx to lab/language/agents/long-ctx.");
  await expect(page.getByTestId("tree-row-lab/language/agents/long-ctx")).toBeVisible();
  // Archive asks first: its question names the node.
  const asked: string[] = [];
  page.on("dialog", (d) => void (asked.push(d.message()), d.accept()));
  await shape.getByRole("button", { name: "Archive long-ctx" }).click();
  expect(asked).toEqual(["Archive lab/language/agents/long-ctx? It leaves the tree for good and its name stays taken."]);
  await expect(shape.getByRole("status")).toHaveText("Archived lab/language/agents/long-ctx.");
  await shape.getByRole("button", { name: "Archive agents" }).click();
  await expect(shape.getByRole("status")).toHaveText("Archived lab/language/agents.");
  await expect(page.getByTestId("tree-row-lab/language/long-ctx")).toHaveCount(0);
});

test("a manager of another subtree gets no members panel for it", async ({ page }) => {
  await signIn(page, "victor");
  await page.goto("/budgets");
  await expect(page.getByTestId("budget-members")).toContainText("lab/vision/");
  await page.getByTestId("tree-row-lab/language").click();
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.getByTestId("budget-members")).toHaveCount(0);
  await expect(page.getByTestId("tree-shape")).toHaveCount(0);
});
