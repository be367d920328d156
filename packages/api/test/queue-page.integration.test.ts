import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goodJob, makeWorld, type World } from "./fixtures";

// The live queue's virtualized list asks for windows of the pending list (and a filter) instead of
// all 10,000 rows: the windows must tile the same order getQueue gives, with the same rows.
let w: World;
const ids: Record<"ada" | "other", number[]> = { ada: [], other: [] };

beforeAll(async () => {
  w = await makeWorld("api_queue_page");
  for (let i = 0; i < 5; i++)
    ids.ada.push((await w.caller("ada").job.submit({ ...goodJob, cluster: "b200", name: `ada-${i}` })).id);
  for (let i = 0; i < 3; i++)
    ids.other.push(
      (await w.caller("other").job.submit({ ...goodJob, cluster: "b200", budget: "lab/vision/video", name: `other-${i}` })).id,
    );
});
afterAll(async () => {
  await w?.db.drop();
});

describe("queue.page", () => {
  it("tiles the pending list in getQueue's order, page by page", async () => {
    const c = w.caller("ada");
    const full = await c.queue.get({ cluster: "b200" });
    expect(full.pending.length).toBeGreaterThanOrEqual(8);
    const pages = [];
    for (let offset = 0; offset < full.pending.length; offset += 3)
      pages.push(await c.queue.page({ cluster: "b200", offset, limit: 3 }));
    expect(pages.flatMap((p) => p.rows)).toEqual(full.pending);
    for (const p of pages) expect(p.total).toBe(full.counts.pending + full.counts.held);
    const head = await c.queue.get({ cluster: "b200", limit: 3 });
    expect(head.pending).toEqual(full.pending.slice(0, 3));
    expect(head.complete).toBe(false);
  });

  it("filters by user name, budget and #id on the server, and takes % and _ literally", async () => {
    const c = w.caller("ada");
    const byUser = await c.queue.page({ cluster: "b200", offset: 0, limit: 100, filter: "ada res" });
    expect(byUser.rows.map((r) => r.id).sort()).toEqual([...ids.ada].sort());
    expect(byUser.total).toBe(5);
    expect(byUser.rows.every((r) => r.user === "Ada Researcher")).toBe(true);
    const byBudget = await c.queue.page({ cluster: "b200", offset: 0, limit: 2, filter: "vision/video" });
    expect(byBudget.total).toBe(3);
    expect(byBudget.rows).toHaveLength(2);
    const byId = await c.queue.page({ cluster: "b200", offset: 0, limit: 10, filter: `#${ids.other[1]}` });
    expect(byId.rows.map((r) => r.id)).toEqual([ids.other[1]]);
    expect((await c.queue.page({ cluster: "b200", offset: 0, limit: 10, filter: "%" })).total).toBe(0);
    expect((await c.queue.page({ cluster: "b200", offset: 0, limit: 10, filter: "_" })).total).toBe(0);
  });

  it("needs a signed-in user and a known cluster", async () => {
    await expect(w.caller(null).queue.page({ cluster: "b200", offset: 0, limit: 10 })).rejects.toThrow(/Sign in/);
    await expect(w.caller("ada").queue.page({ cluster: "nope", offset: 0, limit: 10 })).rejects.toThrow(/Unknown cluster/);
  });
});
