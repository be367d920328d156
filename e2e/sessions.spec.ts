import { expect, test } from "@playwright/test";
import { sameOrigin, signIn } from "./support/helpers";

test("a researcher starts a session from the web, opens it on the sessions host and runs a command; nobody else can reach it", async ({
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

  // "Open the session": its owner is handed over to the sessions host (localhost where the app is on
  // 127.0.0.1), which serves the session's own page; a command runs in its working folder.
  const app = new URL(page.url()).origin;
  const sessions = app.replace("127.0.0.1", "localhost");
  const [tab] = await Promise.all([page.waitForEvent("popup"), open.click()]);
  await expect(tab.getByRole("heading", { name: "Session shell" })).toBeVisible();
  // On its own host, and no ticket left in the address bar (Next drops the path's last slash).
  const base = `/api/v1/sessions/${id}/proxy`;
  expect(tab.url()).toBe(`${sessions}${base}`);
  // Its answers carry their own headers: only the session's own pages may frame it; no handle on the app's window.
  const headers = (await tab.request.get(tab.url())).headers();
  expect([headers["content-security-policy"], headers["x-frame-options"], headers["cross-origin-opener-policy"]]).toEqual([
    "frame-ancestors 'self'",
    "SAMEORIGIN",
    "same-origin",
  ]);
  await tab.getByPlaceholder("ls -la").fill("echo hello-from-the-session > hello.txt && cat hello.txt");
  await tab.getByRole("button", { name: "Run" }).click();
  await expect(tab.locator("pre")).toContainText("hello-from-the-session");

  // The sessions host holds a cookie for this session only, and never the app's login.
  const cookies = await page.context().cookies(`${sessions}${base}`);
  expect(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite])).toEqual([["tranche-session", base, true, "Lax"]]);
  // What the session's page runs reaches neither the app's API nor its pages from there.
  const fromSession = await tab.evaluate(async () =>
    Promise.all(["/api/v1/me", "/api/trpc/job.list", "/api/auth/get-session"].map(async (p) => (await fetch(p)).status)),
  );
  expect(fromSession).toEqual([404, 404, 404]);
  await tab.close();
  // And the app's address no longer serves the session: it sends its owner to the sessions host.
  const direct = await page.request.get(base, { maxRedirects: 0 });
  expect(direct.status()).toBe(303);
  expect(direct.headers()["location"]).toBe(`${sessions}${base}`);

  // Another user, even a manager or admin, finds no such session, on either address.
  const maya = await browser.newPage();
  await signIn(maya, "maya");
  expect((await maya.request.get(`/api/v1/sessions/${id}/proxy/`)).status()).toBe(404);
  expect((await maya.goto(`${sessions}/api/v1/sessions/${id}/proxy/`))?.status()).toBe(404);
  const admin = await browser.newPage();
  await signIn(admin, "admin");
  expect((await admin.request.get(`/api/v1/sessions/${id}/proxy/health`)).status()).toBe(404);

  // End it (its files stay in its folder on the checkpoint root).
  await page.goto(`/jobs/${id}`);
  const cancelled = await page.request.post(`/api/v1/jobs/${id}/cancel`, { headers: sameOrigin(page) });
  expect(cancelled.status()).toBe(200);
});
