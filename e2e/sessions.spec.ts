import { expect, test } from "@playwright/test";
import { sameOrigin, signIn } from "./support/helpers";

test("a researcher starts a session from the web, opens it through the proxy and runs a command; nobody else can reach it", async ({
  page,
  browser,
}) => {
  // A real agent launches the session's server; three people sign in: more than the default minute on a busy machine.
  test.setTimeout(180_000);
  await signIn(page, "ada");
  await page.goto("/jobs");
  await page.getByRole("link", { name: "Start a session" }).first().click();
  await expect(page).toHaveURL(/\/sessions\/new$/);
  await page.getByLabel("Cluster", { exact: true }).selectOption("h100");
  await page.getByLabel("Budget", { exact: true }).selectOption("lab/language/pretraining");
  await page.getByLabel("GPUs", { exact: true }).fill("1");
  await page.getByLabel("Protected for", { exact: true }).fill("4h");
  await page.getByRole("button", { name: "Start a session" }).click();
  await expect(page).toHaveURL(/\/jobs\/\d+\?submitted=1/);
  const id = Number(/\/jobs\/(\d+)/.exec(page.url())![1]);

  // Once its agent reports where the server listens, the page links to it and says how long it is protected.
  const open = page.getByTestId("open-session");
  await expect(open).toBeVisible({ timeout: 45_000 });
  await expect(open).toHaveAttribute("href", `/api/v1/sessions/${id}/proxy/`);
  await expect(page.getByTestId("session-protection")).toContainText(/^Protected for (3 h 59 min|4 h) more\./);
  await expect(page.getByTestId("session-ssh")).toContainText("ssh -N -L 8022:127.0.0.1:");

  // The session's own page, through the web app's proxy: a command runs in its working folder.
  await page.goto(`/api/v1/sessions/${id}/proxy/`);
  await expect(page.getByRole("heading", { name: "Session shell" })).toBeVisible();
  await page.getByPlaceholder("ls -la").fill("echo hello-from-the-session > hello.txt && cat hello.txt");
  await page.getByRole("button", { name: "Run" }).click();
  await expect(page.locator("pre")).toContainText("hello-from-the-session");

  // Another user, even a manager or admin, finds no such session.
  const maya = await browser.newPage();
  await signIn(maya, "maya");
  expect((await maya.request.get(`/api/v1/sessions/${id}/proxy/`)).status()).toBe(404);
  const admin = await browser.newPage();
  await signIn(admin, "admin");
  expect((await admin.request.get(`/api/v1/sessions/${id}/proxy/health`)).status()).toBe(404);

  // End it (its files stay in its folder on the checkpoint root).
  await page.goto(`/jobs/${id}`);
  const cancelled = await page.request.post(`/api/v1/jobs/${id}/cancel`, { headers: sameOrigin(page) });
  expect(cancelled.status()).toBe(200);
});
