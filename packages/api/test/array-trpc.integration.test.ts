import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// The web's array page: job.array, job.holdArray and job.releaseArray call the domain functions REST's
// /arrays/{id}/hold and /release call, with the same rules.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_array_trpc");
});
afterAll(async () => {
  await w?.db.drop();
});

async function fiveTasks(): Promise<{ id: number; ids: number[] }> {
  const id = (await w.caller("ada").job.submit({ ...goodJob, gpus: 1, array: "0-4" })).id;
  const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
  await w.db.prisma.job.update({ where: { id: tasks[4]!.id }, data: { state: "RUNNING" } });
  return { id, ids: tasks.map((t) => t.id) };
}

const states = async (id: number) =>
  (await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } })).map((t) => t.state);

describe("a job array over tRPC (the web's array page)", () => {
  it("says how many tasks are in each state and what the caller may do to them all", async () => {
    const { id } = await fiveTasks();
    const mine = await w.caller("ada").job.array({ id });
    expect(mine).toMatchObject({
      arrayId: id,
      spec: "0-4",
      tasks: 5,
      states: { PENDING: 4, RUNNING: 1 },
      mayHold: true,
      releasable: 0,
      mayCancel: true,
    });
    expect(await w.caller("other").job.array({ id })).toMatchObject({ tasks: 5, mayHold: false, mayCancel: false });
    expect(await w.caller("omar").job.array({ id })).toMatchObject({ mayHold: true, mayCancel: false });
  });

  it("holds and releases every task a researcher may, and says how many", async () => {
    const { id } = await fiveTasks();
    const ada = w.caller("ada").job;
    expect(await ada.holdArray({ id })).toEqual({ arrayId: id, held: 4, running: 1 });
    expect(await states(id)).toEqual(["HELD", "HELD", "HELD", "HELD", "RUNNING"]);
    expect((await ada.array({ id })).releasable).toBe(4);
    // An operator's hold on one task: its owner may not lift it, and the page counts it out.
    const first = await w.db.prisma.job.findFirstOrThrow({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
    await w.db.prisma.job.update({ where: { id: first.id }, data: { heldBy: w.users.omar.id } });
    expect((await ada.array({ id })).releasable).toBe(3);
    expect(await ada.releaseArray({ id })).toEqual({ arrayId: id, released: 3, heldByOperator: 1 });
    expect(await states(id)).toEqual(["HELD", "PENDING", "PENDING", "PENDING", "RUNNING"]);
  });

  it("refuses another researcher's array, and a bad id, with words that say why, changing nothing", async () => {
    const { id, ids } = await fiveTasks();
    const before = await w.counts();
    const other = w.caller("other").job;
    await expect(other.holdArray({ id })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: `Array ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may hold it`,
    });
    await w.caller("ada").job.holdArray({ id });
    await expect(other.releaseArray({ id })).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: `Array ${id} is not yours: only its owner, a manager of its budget, an operator or an admin may release it`,
    });
    // A manager outside the array's budget (Victor manages lab/vision): the domain's rule.
    await expect(w.caller("victor").job.releaseArray({ id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const ada = w.caller("ada").job;
    await expect(ada.holdArray({ id: ids[2]! })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `Job ${ids[2]} is task 2 of array ${id}; the array goes by its first task's id, ${id}`,
    });
    await expect(ada.releaseArray({ id: 99999 })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: "There is no job array 99999",
    });
    await expect(ada.array({ id: 99999 })).rejects.toMatchObject({ code: "NOT_FOUND", message: "There is no job array 99999" });
    await expect(ada.holdArray({ id: "abc" as never })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect(await states(id)).toEqual(["HELD", "HELD", "HELD", "HELD", "RUNNING"]);
    const after = await w.counts();
    expect(after.events - before.events).toBe(4); // Ada's one hold, nothing else
    expect(after.jobs).toBe(before.jobs);
  });

  it("lists one array's tasks (job.list's array), and answers an id that names no array with its words", async () => {
    const { id, ids } = await fiveTasks();
    await w.caller("ada").job.submit(goodJob);
    const listed = await w.caller("ada").job.list({ array: id, limit: 1000 });
    expect(listed.map((j) => j.id).sort((a, b) => a - b)).toEqual(ids);
    await expect(w.caller("ada").job.list({ array: ids[1]! })).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `Job ${ids[1]} is task 1 of array ${id}; the array goes by its first task's id, ${id}`,
    });
    // GET /jobs?array= is the same list.
    const token = (await createApiToken(w.db.prisma, w.users.ada, { name: "array list" })).token;
    const rest = await callRest(w, "GET", `/jobs?array=${id}&limit=10`, { token });
    expect(rest.body.jobs.map((j: { id: number }) => j.id).sort((a: number, b: number) => a - b)).toEqual(ids);
    const bad = await callRest(w, "GET", "/jobs?array=abc", { token });
    expect([bad.status, bad.body.error.message]).toEqual([400, "array must be a job array's id"]);
  });
});
