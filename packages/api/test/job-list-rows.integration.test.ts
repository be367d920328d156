import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@tranche/domain";
import { callRest, goodJob, makeWorld, type World } from "./fixtures";

// My jobs and All jobs list each job array as one row (job.rows, GET /jobs?arrays=rows): a 100-task array
// took 100 of the list's 200 rows, and the single jobs submitted before it fell out of view.

let w: World;
beforeAll(async () => {
  w = await makeWorld("api_job_list_rows");
});
afterAll(async () => {
  await w?.db.drop();
});

describe("a job list with arrays as rows", () => {
  it("counts a mixed array's tasks by state, and a big array takes one row, never the single jobs' places", async () => {
    const ada = w.caller("ada").job;
    const before = [(await ada.submit(goodJob)).id, (await ada.submit(goodJob)).id];
    const id = (await ada.submit({ ...goodJob, gpus: 1, array: "0-99" })).id;
    const after = (await ada.submit(goodJob)).id;
    const tasks = await w.db.prisma.job.findMany({ where: { arrayJobId: id }, orderBy: { arrayIndex: "asc" } });
    const set = (from: number, to: number, data: object) =>
      w.db.prisma.job.updateMany({ where: { id: { in: tasks.slice(from, to).map((t) => t.id) } }, data });
    // The newest activity is the last end: after the submissions, and after the starts.
    const at = (s: number) => new Date(Date.now() + s * 1000 + 123);
    const ended = at(60);
    await set(48, 68, { state: "RUNNING", startedAt: at(20) });
    await set(68, 95, { state: "COMPLETED", finishedAt: at(40) });
    await set(95, 100, { state: "FAILED", exitCode: 1, finishedAt: ended });

    // A limit of 4 holds the array and the three single jobs: with a row per task it held 4 tasks.
    const rows = await ada.rows({ limit: 4 });
    expect(rows.jobs.map((j) => j.id)).toEqual([after, ...before.reverse()]);
    expect(rows.arrays).toEqual([
      {
        id,
        name: "pretrain-7b",
        spec: "0-99",
        cluster: "h100",
        budget: "lab/language/pretraining",
        user: { id: w.users.ada.id, name: expect.any(String) },
        gpus: 1,
        tasks: 100,
        states: { PENDING: 48, RUNNING: 20, COMPLETED: 27, FAILED: 5 },
        lastActivityAt: ended.toISOString(),
      },
    ]);
    // Active: the array has tasks not ended. Finished: it is not listed until all have ended.
    expect((await ada.rows({ active: true })).arrays.map((a) => a.id)).toEqual([id]);
    expect((await ada.rows({ active: false })).arrays).toEqual([]);
    expect((await ada.rows({ state: "FAILED" })).arrays.map((a) => a.id)).toEqual([id]);
    expect((await ada.rows({ state: "FAILED" })).jobs).toEqual([]);
    await set(0, 68, { state: "CANCELLED", finishedAt: ended });
    expect((await ada.rows({ active: false })).arrays.map((a) => [a.id, a.states])).toEqual([
      [id, { COMPLETED: 27, FAILED: 5, CANCELLED: 68 }],
    ]);
    expect((await ada.rows({ active: true })).arrays).toEqual([]);
    // Another researcher's list holds none of it.
    expect(await w.caller("other").job.rows({})).toEqual({ jobs: [], arrays: [] });
  });

  it("tRPC job.list refuses arrays: rows, naming job.rows, where it would have answered tasks", async () => {
    const ada = w.caller("ada").job;
    await expect(ada.list({ arrays: "rows" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("ask job.rows for each array as one row"),
    });
    expect(Array.isArray(await ada.list({ arrays: "tasks", limit: 1 }))).toBe(true);
  });

  it("answers GET /jobs?arrays=rows the same; without it, every task is a job, as before", async () => {
    const id = (await w.caller("ada").job.submit({ ...goodJob, gpus: 1, array: "0-9" })).id;
    const token = (await createApiToken(w.db.prisma, w.users.ada, { name: "rows" })).token;
    const rows = await callRest(w, "GET", "/jobs?arrays=rows&limit=1", { token });
    expect([rows.status, rows.body.jobs, rows.body.arrays.map((a: { id: number; tasks: number }) => [a.id, a.tasks])]).toEqual([
      200,
      [],
      [[id, 10]],
    ]);
    const tasks = await callRest(w, "GET", "/jobs?limit=10", { token });
    expect([tasks.body.arrays, tasks.body.jobs.length]).toEqual([undefined, 10]);
    const bad = await callRest(w, "GET", `/jobs?arrays=rows&array=${id}`, { token });
    expect([bad.status, bad.body.error.message]).toEqual([
      400,
      `arrays=rows lists each array as one row: ask for arrays=tasks to list the tasks of array ${id}`,
    ]);
    const typo = await callRest(w, "GET", "/jobs?arrays=collapsed", { token });
    expect([typo.status, typo.body.error.message]).toEqual([400, "arrays must be tasks or rows"]);
  });

  it("tRPC job.rows asked for arrays: tasks lists every task as a job, as GET /jobs?arrays=tasks does", async () => {
    const ada = w.caller("ada").job;
    const id = (await ada.submit({ ...goodJob, gpus: 1, array: "0-4" })).id;
    const token = (await createApiToken(w.db.prisma, w.users.ada, { name: "tasks" })).token;
    const rest = await callRest(w, "GET", `/jobs?arrays=tasks&array=${id}`, { token });
    const asTasks = await ada.rows({ arrays: "tasks", array: id });
    expect(asTasks.arrays).toEqual([]);
    expect(asTasks.jobs.map((j) => [j.id, j.array?.index])).toEqual(
      rest.body.jobs.map((j: { id: number; array: { index: number } }) => [j.id, j.array.index]),
    );
    expect(asTasks.jobs).toHaveLength(5);
    // One array's tasks as rows is refused, saying how to ask for them, as REST says it.
    await expect(ada.rows({ array: id })).rejects.toMatchObject({
      message: `arrays=rows lists each array as one row: ask for arrays=tasks to list the tasks of array ${id}`,
    });
    // Without it, job.rows still lists the array as one row; a typo is refused as REST refuses it.
    expect((await ada.rows({ limit: 1 })).arrays.map((a) => [a.id, a.tasks])).toEqual([[id, 5]]);
    await expect(ada.rows({ arrays: "collapsed" as "rows" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("arrays must be tasks or rows"),
    });
  });
});
