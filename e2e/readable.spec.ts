/// <reference lib="dom" />
// Some checks run in the page (locator.evaluate), where the DOM is the global scope.
import { expect, test, type Page } from "@playwright/test";
import { cutTexts, sameOrigin, signIn } from "./support/helpers";

// A laptop's width: the share editor's boxes sit four (now three) to a row, and the live queue's list
// takes the page's width with the ratios under it. Found by a journey audit at 1280 x 900.
test.use({ viewport: { width: 1280, height: 900 } });

const percent = (text: string | null) => Number((text ?? "").replace("%", ""));

test("at 1280 px the share editor cuts no label short, and the tree shows saved shares with the unsaved ones marked", async ({
  page,
}) => {
  await signIn(page, "maya");
  await page.goto("/budgets");
  const editor = page.getByTestId("allocation-editor");
  await expect(editor).toContainText("Shares of lab/language on b200");
  // The shares saved now (an earlier journey may have moved them): the draft moves share between the two.
  const savedEval = (await page.getByTestId("ppm-lab/language/evaluation").textContent())!;
  const savedMulti = (await page.getByTestId("ppm-lab/language/multilingual").textContent())!;
  const language = percent(await page.getByTestId("ppm-lab/language").textContent());
  const savedEvalOfCluster = (await page.getByTestId("of-cluster-lab/language/evaluation").textContent())!;
  await expect(page.getByTestId("share-evaluation")).toHaveValue(String(percent(savedEval)));
  const boxes = editor.locator(".sib-grid");
  const boxesHeight = (await boxes.boundingBox())!.height;

  // multilingual at 8.5%, as the audit left it: its segment wrote "ultilingual 8." there.
  const evaluation = percent(savedEval) + percent(savedMulti) - 8.5;
  await page.getByTestId("share-multilingual").fill("8.5");
  await page.getByTestId("share-evaluation").fill(String(evaluation));
  await expect(page.getByTestId("sum-pill")).toHaveText("100% assigned");

  // The strip: each segment writes its whole label, the share alone, or nothing; never a fragment.
  const multi = page.getByTestId("alloc-strip").locator('.alloc-seg[title="multilingual: 8.5%"]');
  await expect(multi).toHaveCount(1);
  expect(["multilingual 8.5%", "8.5%", ""]).toContain((await multi.textContent())!.trim());
  expect(await cutTexts(page.getByTestId("alloc-strip"))).toEqual([]);

  // The boxes: each name and its change in full ("evaluation +…" before), on a line kept for it, so
  // the boxes do not grow as a change appears.
  const diff = evaluation - percent(savedEval);
  await expect(page.getByTestId("saved-evaluation")).toHaveText(`${diff > 0 ? "+" : "−"}${Math.abs(diff)}% · saved ${savedEval}`);
  await expect(page.getByTestId("saved-safety")).toHaveText(/^saved \d/);
  expect(await cutTexts(boxes)).toEqual([]);
  expect((await boxes.boundingBox())!.height).toBe(boxesHeight);

  // The tree keeps what is saved (its usage and ratios are from the saved shares) and marks the draft.
  await expect(page.getByTestId("ppm-lab/language/evaluation")).toHaveText(savedEval);
  await expect(page.getByTestId("draft-ppm-lab/language/evaluation")).toHaveText(`unsaved ${evaluation}%`);
  await expect(page.getByTestId("of-cluster-lab/language/evaluation")).toHaveText(savedEvalOfCluster);
  await expect(page.getByTestId("draft-of-cluster-lab/language/evaluation")).toHaveText(
    `unsaved ${((language / 100) * (evaluation / 100) * 100).toFixed(1)}%`,
  );
  await expect(page.getByTestId("draft-ppm-lab/language/multilingual")).toHaveText("unsaved 8.5%");
  await expect(page.getByTestId("draft-ppm-lab/language/safety")).toHaveCount(0);
  // Reset: nothing unsaved is left to mark.
  await page.getByRole("button", { name: "Reset" }).click();
  await expect(page.getByTestId("draft-ppm-lab/language/evaluation")).toHaveCount(0);
  await expect(page.getByTestId("draft-of-cluster-lab/language/evaluation")).toHaveCount(0);
  await expect(page.getByTestId("saved-evaluation")).toHaveText(`saved ${savedEval}`);
});

async function submit(page: Page, budget: string, gpus: number, name: string): Promise<number> {
  const res = await page.request.post("/api/v1/jobs", {
    headers: sameOrigin(page),
    data: { cluster: "b200", budget, gpus, minRuntime: "2h", resumable: true, priority: 0, command: "sleep 7200", env: {}, name },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { job: { id: number } }).job.id;
}

// At 1440 px the ratios panel sat beside the list, which cut the budgets ("science/robo…") and the
// reasons to one line: it is under the list at every width now.
for (const width of [1280, 1440]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test(`at ${width} px the live queue shows each budget in full, and each reason whole on hover or click`, async ({ page }) => {
      test.setTimeout(90_000);
      await signIn(page, "admin");
      // b200's GPUs held by a protected job (this one, or an earlier journey's, still stopping): the jobs after it wait.
      const blocker = await submit(page, "lab/vision/video", 88, "blocker");
      const waiting: number[] = [];
      try {
        await expect
          .poll(
            async () =>
              ((await (await page.request.get("/api/v1/queue/b200?limit=1")).json()) as { running: { gpus: number }[] }).running
                .map((r) => r.gpus)
                .reduce((a, b) => a + b, 0),
            { timeout: 30_000 },
          )
          .toBeGreaterThanOrEqual(88);
        waiting.push(await submit(page, "lab/language/post-training", 16, "rlhf"));
        waiting.push(await submit(page, "lab/vision/generative", 8, "diffusion"));
        await page.goto("/queue/b200");
        for (const id of waiting) {
          const row = page.getByTestId(`pending-${id}`);
          // The scheduler's reason comes with its next cycle.
          await expect(row.locator("[data-code]")).toBeVisible({ timeout: 20_000 });
          // The budget in full ("language/post…" before).
          const budget = row.getByText(id === waiting[0] ? "language/post-training" : "vision/generative", { exact: true });
          expect(await cutTexts(budget)).toEqual([]);
          // The reason: two lines on the row, the whole of it in the tooltip; its end names the budget.
          const reason = row.locator("button[aria-expanded]");
          const full = id === waiting[0] ? "budget lab/language/post-training" : "budget lab/vision/generative";
          await expect(reason).toHaveAttribute("title", new RegExp(`${full}, .*\\.$`));
        }

        // On click the row opens to the whole reason, taking the room it needs: nothing under it is covered.
        const row = page.getByTestId(`pending-${waiting[0]}`);
        await row.locator("button[aria-expanded]").click();
        await expect(row.locator("button[aria-expanded]")).toHaveAttribute("aria-expanded", "true");
        const sentence = row.locator(".sentence-full");
        await expect(sentence).toContainText("budget lab/language/post-training");
        await expect
          .poll(() =>
            row.evaluate((open) => {
              const box = open.getBoundingClientRect();
              const text = open.querySelector(".sentence-full")!.getBoundingClientRect();
              const others = Array.from(open.parentElement!.querySelectorAll("[role=row]")).filter((r) => r !== open);
              return (
                text.bottom <= box.bottom &&
                others.every((r) => {
                  const o = r.getBoundingClientRect();
                  return o.top >= box.bottom - 1 || o.bottom <= box.top + 1;
                })
              );
            }),
          )
          .toBe(true);
      } finally {
        // The waiting jobs first: the blocker gone, the next cycle could start one of them.
        for (const id of [...waiting, blocker])
          await page.request.post(`/api/v1/jobs/${id}/cancel`, { headers: sameOrigin(page) });
      }
    });
  });
}
